// Package i18n owns Harmony's user-interface languages: the message catalogs
// (English and Russian, embedded JSON in locales/), choosing a request's
// language, and translating inside templ components through the context:
//
//	i18n.T(ctx, "home.title")
//	i18n.N(ctx, "home.modules.count", 8) // "8 modules", "8 разделов"
//
// A key missing in one language falls back to English; a test keeps the two
// catalogs in step.
package i18n

import "golang.org/x/text/language"

// Lang is a supported interface language, as its BCP 47 base code.
type Lang string

const (
	EN Lang = "en"
	RU Lang = "ru"
)

// Default is the language when nothing else decides.
const Default = EN

// Supported lists the interface languages, default first.
func Supported() []Lang { return []Lang{EN, RU} }

// ParseLang returns the supported language named by s ("en", "ru").
func ParseLang(s string) (Lang, bool) {
	for _, l := range Supported() {
		if string(l) == s {
			return l, true
		}
	}
	return "", false
}

// Tag is the language's x/text tag.
func (l Lang) Tag() language.Tag {
	if l == RU {
		return language.Russian
	}
	return language.English
}

// Name is the language's own name for itself, as a switch shows it.
func (l Lang) Name() string {
	if l == RU {
		return "Русский"
	}
	return "English"
}

// Isolate wraps user text that goes into a message (a name in "Join
// {group}") in FSI…PDI, so right-to-left text in it cannot reorder the
// sentence around it. Stored text never holds these characters (the form
// rules refuse them), so the pair always matches.
func Isolate(s string) string { return "\u2068" + s + "\u2069" }
