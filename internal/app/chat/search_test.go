package chat_test

import (
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"

	"github.com/harmony/harmony/internal/app/chat"
	"github.com/harmony/harmony/internal/web/webtest"
)

// TestSearchingAChat: a chat's search finds the messages holding every
// word sought (case and "ё" aside), newest first, with the words marked
// and a link that opens the chat at each; never a deleted message, a
// "joined" line, or the messages of someone the reader blocked. It
// reads a bounded stretch of the log a page and goes on from where it
// stopped; a page holds at most 20 found. A bad query is refused on its
// field, a bad cursor is a 400, and a chat the reader may not open has
// no search.
func TestSearchingAChat(t *testing.T) {
	t.Parallel()
	a := newApp(t, "TEST_SEARCH_SCAN", "30")
	ann, bob := a.annAndBob()
	room := "/chat/room-general"
	send := func(who string, body string) {
		c := map[string]*webtest.Client{"ann": ann, "bob": bob}[who]
		if res := post(c, room+"/messages", url.Values{"body": {body}}); res.StatusCode != http.StatusSeeOther {
			t.Fatalf("%s says %q: %d", who, body, res.StatusCode)
		}
		a.Clock.Advance(3 * time.Second) // within the send limit
	}
	send("ann", "Let's plan the jazz night")
	send("bob", "jazz from bob, whom ann blocks")
	send("ann", "Планируем новогоднюю ёлку")
	send("ann", "Nothing to see")
	send("ann", "**Jazz** again, Thursday")
	send("ann", "jazz, deleted soon")
	deleted := seqOf(t, ann, room, "deleted soon")
	post(ann, room+"/messages/"+deleted+"/delete", url.Values{"confirm": {"yes"}})
	bobKey := strings.TrimPrefix(bob.Get(room).Doc(t).Find(`a.chat-sender`).FilterFunction(func(_ int, s *goquery.Selection) bool { return s.Text() == "bob" }).First().AttrOr("href", ""), "/people/")
	post(ann, "/chat/block", url.Values{"member": {bobKey}, "name": {"bob"}, "confirm": {"yes"}})

	search := func(c *webtest.Client, q string, more ...string) (*webtest.Response, []string) {
		path := room + "/search?q=" + url.QueryEscape(q)
		if len(more) > 0 {
			path = more[0]
		}
		res := c.Get(path)
		var found []string
		res.Doc(t).Find(testID("chat-found-item")).Each(func(_ int, s *goquery.Selection) {
			found = append(found, s.Find(".chat-found-text").Text())
		})
		return res, found
	}
	// The chat's page links to it; the empty form finds nothing yet.
	if href := ann.Get(room).Doc(t).Find(testID("chat-search-link")).AttrOr("href", ""); href != room+"/search" {
		t.Fatalf("the search link: %q", href)
	}
	if res, found := search(ann, ""); res.StatusCode != http.StatusOK || len(found) != 0 || res.Doc(t).Find(testID("chat-search-empty")).Length() != 0 {
		t.Fatalf("the empty search: %d %q", res.StatusCode, found)
	}
	res, found := search(ann, "JAZZ")
	if res.StatusCode != http.StatusOK || strings.Join(found, "|") != "Jazz again, Thursday|Let's plan the jazz night" {
		t.Fatalf("ann's search for JAZZ: %d %q", res.StatusCode, found)
	}
	doc := res.Doc(t)
	if marks := doc.Find(testID("chat-found-item") + " mark"); marks.Length() != 2 || marks.First().Text() != "Jazz" {
		t.Errorf("the marked words: %d", marks.Length())
	}
	plan := seqOf(t, ann, room, "plan the jazz")
	n, _ := strconv.Atoi(plan)
	if href := doc.Find(testID("chat-found-open")).Last().AttrOr("href", ""); href != room+"?after="+strconv.Itoa(n-1)+"#m-"+plan {
		t.Errorf("the link to the message: %q", href)
	}
	// Bob has not blocked ann: he finds his own and hers.
	if _, found := search(bob, "jazz"); len(found) != 3 {
		t.Errorf("bob's search: %q", found)
	}
	for q, want := range map[string]string{"ЕЛКУ планируем": "Планируем новогоднюю ёлку", "jazz plan": "Let's plan the jazz night", "blues": ""} {
		if _, found := search(ann, q); strings.Join(found, "|") != want {
			t.Errorf("%q finds %q, want %q", q, found, want)
		}
	}
	if ru := ann.Get(room+"/search?q=blues", "Accept-Language", "ru").Doc(t); ru.Find("h1").Text() != "Поиск по чату" || ru.Find(testID("chat-search-empty")).Text() != "Нет сообщений со всеми этими словами." {
		t.Errorf("the Russian page: %q", ru.Find("h1").Text())
	}

	// Bad queries and cursors.
	for q, want := range map[string]string{strings.Repeat("x", 101): "up to 100 characters", "jazz\x07": "", "a\u202eb": ""} {
		res := ann.Get(room + "/search?q=" + url.QueryEscape(q))
		if res.StatusCode != http.StatusUnprocessableEntity || res.Doc(t).Find(`#chat-search-q[aria-invalid="true"]`).Length() != 1 || !strings.Contains(res.Body, want) {
			t.Errorf("the query %q: %d", q, res.StatusCode)
		}
	}
	for _, before := range []string{"x", "1", "-4", "99999999999999999999"} {
		if res := ann.Get(room + "/search?q=jazz&before=" + url.QueryEscape(before)); res.StatusCode != http.StatusBadRequest {
			t.Errorf("before=%s: %d", before, res.StatusCode)
		}
	}
	org := a.Client()
	a.SignIn(org, "org@example.com")
	dm := post(ann, "/chat/private", url.Values{"member": {bobKey}}).Header.Get("Location")
	if res := org.Get(dm + "/search?q=jazz"); res.StatusCode != http.StatusNotFound {
		t.Errorf("someone else's private chat's search: %d", res.StatusCode)
	}

	// 25 ticks: the first page shows 20 of them; the next goes on below,
	// reading 30 messages a page, back to the start.
	for i := 1; i <= 25; i++ {
		send("ann", "tick "+strconv.Itoa(i))
	}
	res, found = search(ann, "tick")
	more := res.Doc(t).Find(testID("chat-search-more")).AttrOr("href", "")
	if len(found) != 20 || found[0] != "tick 25" || found[19] != "tick 6" || more == "" {
		t.Fatalf("the first page of ticks: %q, more %q", found, more)
	}
	res, found = search(ann, "", more)
	if strings.Join(found, "|") != "tick 5|tick 4|tick 3|tick 2|tick 1" || res.Doc(t).Find(testID("chat-search-more")).Length() != 0 {
		t.Fatalf("the next page of ticks: %q", found)
	}
	// A search reads 30 messages a page here: "jazz" finds one among
	// the ticks, and says how far back it looked; the next page reaches
	// the chat's start and finds the other.
	res, found = search(ann, "jazz")
	more = res.Doc(t).Find(testID("chat-search-more")).AttrOr("href", "")
	if strings.Join(found, "|") != "Jazz again, Thursday" || more == "" || !strings.Contains(res.Doc(t).Find(".chat-search-more").Text(), "Searched back to") {
		t.Fatalf("jazz among the ticks: %q, more %q", found, more)
	}
	if res, found := search(ann, "", more); strings.Join(found, "|") != "Let's plan the jazz night" || res.Doc(t).Find(testID("chat-search-more")).Length() != 0 {
		t.Fatalf("the last page: %q", found)
	}
}

// TestSearchesArePaced: a client's searches are paced (each reads up to
// a thousand messages): past the burst the page says why, 429, and
// reads nothing; a while later it searches again.
func TestSearchesArePaced(t *testing.T) {
	t.Parallel()
	a := newApp(t)
	ann, _ := a.annAndBob()
	room := "/chat/room-general"
	post(ann, room+"/messages", url.Values{"body": {"jazz tonight"}})
	var searched, refused *webtest.Response
	for i := 0; i < 25 && refused == nil; i++ {
		if res := ann.Get(room + "/search?q=jazz"); res.StatusCode == http.StatusTooManyRequests {
			refused = res
		} else if res.StatusCode != http.StatusOK {
			t.Fatalf("search %d: %d", i, res.StatusCode)
		} else {
			searched = res
		}
	}
	if refused == nil || !strings.Contains(refused.Body, "Too many searches") {
		t.Fatalf("no pace after 25 searches: %v", refused)
	}
	// Nothing a search reads: the reader's blocks and the log's range
	// (queries), the chat's head (a point read).
	if got, was := refused.StorageOps(t), searched.StorageOps(t); got["queries"] != 0 || was["queries"] != 2 || got["reads"] != was["reads"]-1 {
		t.Errorf("a refused search costs %v, an answered one %v", got, was)
	}
	// The empty form is never paced.
	if res := ann.Get(room + "/search"); res.StatusCode != http.StatusOK {
		t.Fatalf("the empty form: %d", res.StatusCode)
	}
	a.Clock.Advance(10 * time.Second)
	if res := ann.Get(room + "/search?q=jazz"); res.StatusCode != http.StatusOK || res.Doc(t).Find(testID("chat-found-item")).Length() != 1 {
		t.Fatalf("a search a while later: %d", res.StatusCode)
	}
}

// TestSearchAcrossChats: the search of all one's chats finds the
// messages holding every word in the rooms one is in and one's private
// chats, newest first, each with its chat and a link to it; never a
// chat one may not open, nor the words of someone one blocked; it says
// how far it looked. A query too long is refused on its field (422), an
// empty one shows the form alone.
func TestSearchAcrossChats(t *testing.T) {
	t.Parallel()
	a := newApp(t)
	ann, bob := a.annAndBob()
	cat := a.Client()
	catKey := a.SignIn(cat, "cat@example.com")
	bobKey := a.Who(bob)
	post(ann, "/chat/room-random/messages", url.Values{"body": {"Who has the blue kettle?"}})
	a.Clock.Advance(time.Minute)
	dm := post(ann, "/chat/private", url.Values{"member": {bobKey}}).Header.Get("Location")
	post(ann, dm+"/messages", url.Values{"body": {"The blue **kettle** is in my car"}})
	a.Clock.Advance(time.Minute)
	catDM := post(cat, "/chat/private", url.Values{"member": {bobKey}}).Header.Get("Location")
	post(cat, catDM+"/messages", url.Values{"body": {"Blue kettle for sale"}})
	post(bob, "/chat/block", url.Values{"member": {catKey}, "name": {"cat"}, "confirm": {"yes"}})
	post(ann, "/chat/room-general/messages", url.Values{"body": {"A red kettle"}})

	search := func(c *webtest.Client, q string) *goquery.Document {
		t.Helper()
		return c.Get(chat.SearchURL + "?q=" + url.QueryEscape(q)).Doc(t)
	}
	doc := search(bob, "blue KETTLE")
	var got []string
	doc.Find(testID("chat-found-item")).Each(func(_ int, s *goquery.Selection) {
		got = append(got, s.Find(testID("chat-found-chat")).Text()+": "+s.Find(".chat-found-text").Text())
	})
	if strings.Join(got, " | ") != "ann: The blue kettle is in my car | #random: Who has the blue kettle?" {
		t.Errorf("bob found: %q", got)
	}
	if href := doc.Find(testID("chat-found-open")).First().AttrOr("href", ""); !strings.HasPrefix(href, dm+"?after=") {
		t.Errorf("the first result leads to %q", href)
	}
	if !strings.Contains(doc.Find(testID("chat-search-note")).Text(), "latest 200 messages of your 20 most recent chats") {
		t.Errorf("the note: %q", doc.Find(testID("chat-search-note")).Text())
	}
	// Cat is in neither ann's private chat nor blocked: only the room's,
	// and her own.
	if n := search(cat, "blue kettle").Find(testID("chat-found-item")).Length(); n != 2 {
		t.Errorf("cat found %d", n)
	}
	if doc := search(bob, "blue kettle car boat"); doc.Find(testID("chat-search-empty")).Length() != 1 {
		t.Error("a search of words nobody wrote found something")
	}
	if doc := bob.Get(chat.SearchURL).Doc(t); doc.Find(testID("chat-search-q")).Length() != 1 || doc.Find(testID("chat-found")).Length() != 0 {
		t.Error("the empty search")
	}
	form, searched := bob.Get(chat.SearchURL).StorageOps(t), bob.Get(chat.SearchURL+"?q=kettle").StorageOps(t)
	// Bob's chats: two rooms and two private chats, one with cat, whom he
	// blocked. The search reads the rooms, his chats and his blocks (3
	// queries), each chat's head (4 reads), authorizes the private ones
	// (2 reads), and reads the latest messages of the three not blocked
	// (3 queries); the form alone reads none of it.
	if searched["queries"]-form["queries"] != 3+3 || searched["reads"]-form["reads"] != 4+2 || searched["writes"] != 0 {
		t.Errorf("a search of all chats: %v; the form: %v", searched, form)
	}
	if res := bob.Get(chat.SearchURL + "?q=" + strings.Repeat("x", 101)); res.StatusCode != http.StatusUnprocessableEntity || res.Doc(t).Find(`#chat-search-q[aria-invalid="true"]`).Length() != 1 || res.Doc(t).Find("h1").Length() != 1 {
		t.Errorf("a query too long: %d", res.StatusCode)
	}
	if got := search(bob, "kettle").Find("h1").Text(); got != "Search your chats" {
		t.Errorf("the heading: %q", got)
	}
	if got := bob.Get(chat.SearchURL+"?q=kettle", "Accept-Language", "ru").Doc(t).Find("h1").Text(); got != "Поиск по чатам" {
		t.Errorf("the heading in Russian: %q", got)
	}
}
