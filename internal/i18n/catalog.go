package i18n

import (
	"bytes"
	"embed"
	"encoding/json"
	"fmt"
	"strings"

	"golang.org/x/text/feature/plural"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
)

//go:embed locales/*.json
var localeFiles embed.FS

// entry is one catalog message: plain text, or plural forms keyed by CLDR
// category ("one", "few", "many", "other").
type entry struct {
	text   string
	plural map[string]string
}

// Catalog holds every language's messages. It is read-only after New and
// safe for concurrent use.
type Catalog struct {
	messages   map[Lang]map[string]entry
	matcher    language.Matcher
	localizers map[Lang]*Localizer
}

// New loads the embedded catalogs.
func New() (*Catalog, error) {
	c := &Catalog{messages: map[Lang]map[string]entry{}}
	tags := make([]language.Tag, 0, len(Supported()))
	for _, l := range Supported() {
		raw, err := localeFiles.ReadFile("locales/" + string(l) + ".json")
		if err != nil {
			return nil, err
		}
		msgs, err := parseCatalog(raw)
		if err != nil {
			return nil, fmt.Errorf("i18n: locales/%s.json: %w", l, err)
		}
		c.messages[l] = msgs
		tags = append(tags, l.Tag())
	}
	c.matcher = language.NewMatcher(tags)
	c.localizers = make(map[Lang]*Localizer, len(Supported()))
	for _, l := range Supported() {
		c.localizers[l] = c.newLocalizer(l)
	}
	return c, nil
}

func parseCatalog(raw []byte) (map[string]entry, error) {
	var doc map[string]json.RawMessage
	dec := json.NewDecoder(bytes.NewReader(raw))
	if err := dec.Decode(&doc); err != nil {
		return nil, err
	}
	out := make(map[string]entry, len(doc))
	for key, v := range doc {
		var text string
		if err := json.Unmarshal(v, &text); err == nil {
			out[key] = entry{text: text}
			continue
		}
		var forms map[string]string
		if err := json.Unmarshal(v, &forms); err != nil {
			return nil, fmt.Errorf("%s: want a string or an object of plural forms", key)
		}
		out[key] = entry{plural: forms}
	}
	return out, nil
}

// Keys lists the catalog's keys for l (for tests and tools).
func (c *Catalog) Keys(l Lang) []string {
	keys := make([]string, 0, len(c.messages[l]))
	for k := range c.messages[l] {
		keys = append(keys, k)
	}
	return keys
}

// Resolve picks the language for a request: the signed-in user's setting,
// then the lang cookie, then Accept-Language, then English. Unsupported
// values are skipped, not errors.
func (c *Catalog) Resolve(userSetting, cookie, acceptLanguage string) Lang {
	for _, s := range []string{userSetting, cookie} {
		if l, ok := ParseLang(s); ok {
			return l
		}
	}
	if acceptLanguage == "" {
		return Default
	}
	_, i, conf := c.matcher.Match(parseAccept(acceptLanguage)...)
	if conf == language.No {
		return Default
	}
	return Supported()[i]
}

func parseAccept(header string) []language.Tag {
	tags, _, err := language.ParseAcceptLanguage(header)
	if err != nil {
		return nil
	}
	return tags
}

// Localizer translates into one language. Get one with Catalog.For.
type Localizer struct {
	lang    Lang
	cat     *Catalog
	printer *message.Printer
}

// For returns the Localizer for l. Localizers are safe for concurrent use.
func (c *Catalog) For(l Lang) *Localizer {
	if z, ok := c.localizers[l]; ok {
		return z
	}
	return c.newLocalizer(l)
}

func (c *Catalog) newLocalizer(l Lang) *Localizer {
	return &Localizer{lang: l, cat: c, printer: message.NewPrinter(l.Tag())}
}

// Lang is the Localizer's language.
func (z *Localizer) Lang() Lang { return z.lang }

// T translates key, filling {name} placeholders from args given as name,
// value pairs. Numbers are formatted for the language ("1 000" in Russian).
func (z *Localizer) T(key string, args ...any) string {
	e, ok := z.lookup(key)
	if !ok {
		return key
	}
	text := e.text
	if e.plural != nil {
		text = e.plural["other"]
	}
	return z.fill(text, args)
}

// N translates key in the plural form that n takes in the language, with
// {n} set to n. Russian has one (1, 21), few (2–4, 22) and many (5–20, 11).
func (z *Localizer) N(key string, n int, args ...any) string {
	e, ok := z.lookup(key)
	if !ok {
		return key
	}
	text := e.text
	if e.plural != nil {
		text = pluralText(e.plural, PluralForm(z.lang, n))
	}
	return z.fill(text, append([]any{"n", n}, args...))
}

func (z *Localizer) lookup(key string) (entry, bool) {
	if e, ok := z.cat.messages[z.lang][key]; ok {
		return e, true
	}
	e, ok := z.cat.messages[Default][key]
	return e, ok
}

// fill puts the named args into text's {name} placeholders in one pass;
// a placeholder without an arg stays as it is, and filled values are not
// scanned again. (A strings.Replacer per call cost an eighth of a catalog
// page's CPU: pages translate dozens of strings.)
func (z *Localizer) fill(text string, args []any) string {
	if len(args) < 2 || !strings.Contains(text, "{") {
		return text
	}
	var b strings.Builder
	b.Grow(len(text) + 16)
	for {
		open := strings.IndexByte(text, '{')
		if open < 0 {
			break
		}
		end := strings.IndexByte(text[open:], '}')
		if end < 0 {
			break
		}
		name := text[open+1 : open+end]
		b.WriteString(text[:open])
		if v, ok := argNamed(args, name); ok {
			b.WriteString(z.printer.Sprint(v))
		} else {
			b.WriteString(text[open : open+end+1])
		}
		text = text[open+end+1:]
	}
	b.WriteString(text)
	return b.String()
}

// argNamed finds name among the name, value pairs of args.
func argNamed(args []any, name string) (any, bool) {
	for i := 0; i+1 < len(args); i += 2 {
		if k, ok := args[i].(string); ok && k == name {
			return args[i+1], true
		} else if !ok && fmt.Sprint(args[i]) == name {
			return args[i+1], true
		}
	}
	return nil, false
}

// PluralForm is the CLDR plural category of the whole number n in l:
// "one", "few", "many" or "other".
func PluralForm(l Lang, n int) string {
	if n < 0 {
		n = -n
	}
	switch plural.Cardinal.MatchPlural(l.Tag(), n, 0, 0, 0, 0) {
	case plural.One:
		return "one"
	case plural.Few:
		return "few"
	case plural.Many:
		return "many"
	default:
		return "other"
	}
}

// pluralText picks the form, falling back to "other" then "many" so a
// catalog that names only the forms its language uses still works.
func pluralText(forms map[string]string, form string) string {
	for _, f := range []string{form, "other", "many"} {
		if t, ok := forms[f]; ok {
			return t
		}
	}
	return ""
}
