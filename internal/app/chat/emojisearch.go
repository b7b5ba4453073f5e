package chat

import (
	"slices"
	"strings"
	"sync"

	"github.com/harmony/harmony/internal/i18n"
	"github.com/harmony/harmony/internal/textsearch"
)

// emojiNames name every emoji of the picker. Its name is the i18n key
// "chat.reaction.<name>", what screen readers say and a pointer shows;
// "chat.reaction.<name>.words" are more words a search finds it by
// (SearchReactions), in each language.
var emojiNames = map[string]string{
	// Frequent (Reactions).
	"👍": "thumbs_up", "❤️": "heart", "😂": "laugh", "🎉": "party", "😮": "surprised", "😢": "sad", "👎": "thumbs_down", "🙏": "thanks",
	"🔥": "fire", "👏": "clap", "😍": "love", "🤔": "thinking", "👀": "eyes", "✅": "done", "💯": "hundred", "😡": "angry",
	// Faces.
	"😀": "grinning", "😃": "smiley", "😄": "smile", "😁": "beaming", "😆": "laughing", "😅": "sweat_smile", "🤣": "rofl", "😊": "blush",
	"🙂": "slight_smile", "🙃": "upside_down", "😉": "wink", "😌": "relieved", "😎": "cool", "🤩": "star_struck", "🥳": "partying", "😏": "smirk",
	"😴": "sleeping", "🤯": "mind_blown", "😬": "grimacing", "🙄": "eye_roll", "😳": "flushed", "🥺": "pleading", "😭": "sobbing", "😤": "huffing",
	// People and hands.
	"👋": "wave", "🤝": "handshake", "🙌": "raised_hands", "💪": "muscle", "🤞": "fingers_crossed", "✌️": "victory", "👌": "ok_hand", "🤙": "call_me",
	"👊": "fist_bump", "✊": "raised_fist", "🤗": "hug", "🤷": "shrug", "🙋": "raising_hand", "🤦": "facepalm", "💃": "dancer", "🕺": "dancing_man",
	// Nature and music.
	"🌞": "sun", "🌈": "rainbow", "⭐": "star", "🌟": "glowing_star", "✨": "sparkles", "⚡": "lightning", "❄️": "snowflake", "🌊": "water_wave",
	"🌸": "blossom", "🌻": "sunflower", "🍀": "clover", "🐶": "dog", "🐱": "cat", "🦄": "unicorn", "🎶": "notes", "🎵": "note",
	// Food, things and signs.
	"☕": "coffee", "🍕": "pizza", "🍰": "cake", "🎂": "birthday", "🍻": "beers", "🥂": "toast", "🎁": "gift", "🎈": "balloon",
	"🏆": "trophy", "🥇": "gold_medal", "⚽": "football", "🎸": "guitar", "📷": "camera", "📌": "pin", "💡": "idea", "⏰": "alarm",
	"🚀": "rocket", "🏠": "house", "❓": "question", "❗": "exclamation", "➕": "plus", "❌": "cross", "💤": "zzz", "🆗": "ok_button",
}

// maxEmojiQuery bounds a search of the picker, in characters: the
// longest name is a few words.
const maxEmojiQuery = 40

// emojiWords are each emoji's words, lower-cased with "ё" read as "е"
// (as Russians often type it), in allReactions' order: its name and
// search words in every language. The scripts differ, so searching all
// at once finds what the reader typed in theirs, and English names from
// any page. Built once, from the embedded catalogs; a catalog that does
// not load fails every test and the server's start, so here it only
// leaves the search finding nothing.
var emojiWords = sync.OnceValue(func() [][]string {
	cat, err := i18n.New()
	if err != nil {
		return nil
	}
	out := make([][]string, len(allReactions))
	for i, e := range allReactions {
		key := "chat.reaction." + emojiNames[e]
		for _, l := range i18n.Supported() {
			z := cat.For(l)
			out[i] = append(out[i], searchWords(z.T(key)+" "+z.T(key+".words"))...)
		}
	}
	return out
})

// searchWords are the words of s a search compares.
func searchWords(s string) []string {
	words := textsearch.Words(s)
	for i, w := range words {
		words[i] = strings.ReplaceAll(w, "ё", "е")
	}
	return words
}

// SearchReactions are the emoji whose names or search words, in any
// language, begin with every word of q, case aside, in the picker's
// order: "heart", "сердце", "thumbs up", "ко" (кофе, кошка, кот). A
// q of no words (an emoji itself, "+") finds that emoji only.
func SearchReactions(q string) []string {
	want := searchWords(q)
	if len(want) == 0 {
		glyph := strings.TrimSpace(q)
		return slices.DeleteFunc(slices.Clone(allReactions), func(e string) bool {
			return strings.TrimSuffix(e, "\uFE0F") != strings.TrimSuffix(glyph, "\uFE0F")
		})
	}
	words := emojiWords()
	var out []string
	for i, e := range allReactions {
		if i < len(words) && matchesAll(words[i], want) {
			out = append(out, e)
		}
	}
	return out
}

// matchesAll reports whether every word of want begins one of words.
func matchesAll(words, want []string) bool {
	for _, w := range want {
		if !slices.ContainsFunc(words, func(word string) bool { return strings.HasPrefix(word, w) }) {
			return false
		}
	}
	return true
}
