package prompts

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"
	"github.com/labstack/echo/v4"

	"github.com/harmony/harmony/internal/app/account/accounttest"
	"github.com/harmony/harmony/internal/platform"
	"github.com/harmony/harmony/internal/storage"
	"github.com/harmony/harmony/internal/web"
	"github.com/harmony/harmony/internal/web/webtest"
)

const bossEmail = "boss@example.com" // in ADMIN_EMAILS

// promptsApp is the real stack with the prompts module.
type promptsApp struct {
	*accounttest.App
	svc *Service
}

func newPromptsApp(t *testing.T) *promptsApp {
	t.Helper()
	return newPromptsAppOn(t, nil)
}

// newPromptsAppOn is newPromptsApp on a backend wrap wraps (nil: as it
// is).
func newPromptsAppOn(t *testing.T, wrap func(storage.Backend) storage.Backend) *promptsApp {
	t.Helper()
	app := &promptsApp{}
	app.App = accounttest.New(t, accounttest.Options{
		Env: map[string]string{"ADMIN_EMAILS": bossEmail}, Wrap: wrap,
		Modules: []platform.Factory{func(c *platform.Core) (web.Module, error) {
			app.svc = New(c.Store, c.Accounts, c.Cursors, c.Log, c.Now)
			return app.svc, nil
		}},
	})
	return app
}

// user is a signed-in browser and its memberKey.
type user struct {
	c   *webtest.Client
	key string
}

func (a *promptsApp) signIn(t *testing.T, email string) user {
	t.Helper()
	c := a.Client()
	return user{c: c, key: a.SignIn(c, email)}
}

func testID(id string) string { return `[data-testid="` + id + `"]` }

var htmxPartial = []string{"HX-Request", "true", "HX-Request-Type", "partial"}

func post(t *testing.T, c *webtest.Client, path string, form url.Values, headers ...string) *webtest.Response {
	t.Helper()
	if form == nil {
		form = url.Values{}
	}
	return c.PostForm(path, c.WithCSRF("/", form), headers...)
}

func promptForm(title, text, visibility string, tags ...string) url.Values {
	return url.Values{"title": {title}, "text": {text}, "visibility": {visibility}, "tag": tags}
}

var promptPath = regexp.MustCompile(`^/prompts/([0-9A-Z]{26})$`)

// createPrompt creates a prompt through the form and returns its id. The
// clock moves past the rate limit first.
func (a *promptsApp) createPrompt(t *testing.T, u user, form url.Values) string {
	t.Helper()
	a.Clock.Advance(CreateInterval + time.Second)
	res := post(t, u.c, "/prompts", form)
	m := promptPath.FindStringSubmatch(res.Header.Get("Location"))
	if res.StatusCode != http.StatusSeeOther || m == nil {
		t.Fatalf("create %q: %d %q", form.Get("title"), res.StatusCode, res.Header.Get("Location"))
	}
	return m[1]
}

// mustCreate creates a prompt through the service (fast, no HTTP).
func (a *promptsApp) mustCreate(t testing.TB, author string, in Input) PromptRow {
	t.Helper()
	a.Clock.Advance(CreateInterval + time.Second)
	p, err := a.svc.Create(ctx, author, in)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func cardIDs(doc *goquery.Document) []string {
	var out []string
	doc.Find(testID("prompt-card")).Each(func(_ int, s *goquery.Selection) {
		out = append(out, s.AttrOr("data-prompt", ""))
	})
	return out
}

func chipHref(t *testing.T, doc *goquery.Document, tag string) string {
	t.Helper()
	href, ok := doc.Find(testID("tag-chip") + `[data-tag="` + tag + `"]`).Attr("href")
	if !ok {
		t.Fatalf("no chip for %q", tag)
	}
	return href
}

func TestCatalogPageListsNewest(t *testing.T) {
	t.Parallel()
	a := newPromptsApp(t)
	ann := a.signIn(t, "ann@example.com")
	first := a.createPrompt(t, ann, promptForm("Summarise a meeting", "Summarise {{notes}}.", Public, "writing"))
	second := a.createPrompt(t, ann, promptForm("Review my code", "Review {{code}}.", Public, "coding"))
	a.createPrompt(t, ann, promptForm("My secret", "Hidden.", Private))

	visitor := a.Client()
	res := visitor.Get("/prompts")
	if res.StatusCode != http.StatusOK {
		t.Fatalf("GET /prompts: %d", res.StatusCode)
	}
	doc := res.Doc(t)
	if got := cardIDs(doc); !slices.Equal(got, []string{second, first}) {
		t.Fatalf("catalog cards %v, want newest first [%s %s] without the private one", got, second, first)
	}
	card := doc.Find(testID("prompt-card")).First()
	if href, _ := card.Find(testID("prompt-link")).Attr("href"); href != "/prompts/"+second {
		t.Errorf("title link %q", href)
	}
	if card.Find(testID("prompt-tags")).Text() != "Coding" || !strings.Contains(card.Find(testID("card-likes")).Text(), "0 likes") {
		t.Errorf("card shows tags %q and %q", card.Find(testID("prompt-tags")).Text(), card.Find(testID("card-likes")).Text())
	}
	if cur, _ := doc.Find(testID("sort-newest")).Attr("aria-current"); cur != "true" {
		t.Error("newest is not marked as the current sort")
	}
	if href, _ := doc.Find(testID("sort-liked")).Attr("href"); href != "/prompts?sort=liked" {
		t.Errorf("most liked link %q", href)
	}
	if doc.Find(testID("new-prompt")).Length() != 0 {
		t.Error("a visitor is offered New prompt")
	}
	if doc.Find(testID("prompt-card")+" "+testID("prompt-author")).Length() != 0 {
		t.Error("the catalog shows authors (a profile read per row)")
	}
	if n := ann.c.Get("/prompts").Doc(t).Find(testID("new-prompt")).Length(); n != 1 {
		t.Error("a signed-in person is not offered New prompt")
	}

	// Most liked: a vote puts the older prompt first.
	bob := a.signIn(t, "bob@example.com")
	if res := post(t, bob.c, "/prompts/"+first+"/vote", url.Values{"value": {"like"}}); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("vote: %d", res.StatusCode)
	}
	liked := visitor.Get("/prompts?sort=liked").Doc(t)
	if got := cardIDs(liked); len(got) != 2 || got[0] != first {
		t.Errorf("most liked %v, want %s first", got, first)
	}
	if cur, _ := liked.Find(testID("sort-liked")).Attr("aria-current"); cur != "true" {
		t.Error("most liked is not marked as the current sort")
	}
}

func TestCatalogEmptyStates(t *testing.T) {
	t.Parallel()
	a := newPromptsApp(t)
	doc := a.Client().Get("/prompts").Doc(t)
	if doc.Find(testID("prompts-empty")).Length() != 1 || doc.Find(testID("prompt-list")).Length() != 0 {
		t.Error("an empty catalog shows no empty state")
	}
	doc = a.Client().Get("/prompts?tag=coding&q=anything").Doc(t)
	if doc.Find(testID("prompts-empty")).Length() != 1 || doc.Find(testID("clear-filters")).AttrOr("href", "") != "/prompts" {
		t.Error("a filtered empty catalog offers no way back")
	}
}

func TestCatalogTagFilterLinksAreShareable(t *testing.T) {
	t.Parallel()
	a := newPromptsApp(t)
	ann := a.signIn(t, "ann@example.com")
	both := a.createPrompt(t, ann, promptForm("Blog post outline", "Outline {{topic}}.", Public, "writing", "marketing"))
	writing := a.createPrompt(t, ann, promptForm("Short story", "A story about {{hero}}.", Public, "writing"))
	a.createPrompt(t, ann, promptForm("SQL helper", "Write SQL for {{question}}.", Public, "coding"))

	visitor := a.Client()
	doc := visitor.Get("/prompts").Doc(t)
	chip := doc.Find(testID("tag-chip") + `[data-tag="writing"]`)
	if chip.Find(".chip-count").Text() != "2" {
		t.Errorf("writing chip count %q, want 2", chip.Find(".chip-count").Text())
	}
	href := chipHref(t, doc, "writing")
	if href != "/prompts?tag=writing" {
		t.Fatalf("writing chip links to %q", href)
	}
	doc = visitor.Get(href).Doc(t)
	if got := cardIDs(doc); !slices.Equal(got, []string{writing, both}) {
		t.Fatalf("tag writing lists %v", got)
	}
	if doc.Find(testID("tag-chip")+`[data-tag="writing"]`).AttrOr("data-selected", "") != "true" {
		t.Error("the chosen chip is not marked")
	}
	// A second chip narrows (AND), and the URL says both.
	href = chipHref(t, doc, "marketing")
	if href != "/prompts?tag=marketing&tag=writing" {
		t.Fatalf("marketing chip links to %q", href)
	}
	doc = visitor.Get(href).Doc(t)
	if got := cardIDs(doc); !slices.Equal(got, []string{both}) {
		t.Fatalf("writing AND marketing lists %v", got)
	}
	// Choosing a chosen chip takes it out; the sort switch keeps the tags.
	if href := chipHref(t, doc, "writing"); href != "/prompts?tag=marketing" {
		t.Errorf("selected chip links to %q", href)
	}
	if href, _ := doc.Find(testID("sort-liked")).Attr("href"); href != "/prompts?sort=liked&tag=marketing&tag=writing" {
		t.Errorf("most liked keeps the tags: %q", href)
	}
	if hidden := doc.Find(testID("prompt-search") + ` input[type="hidden"][name="tag"]`).Length(); hidden != 2 {
		t.Errorf("the search form carries %d tags, want 2", hidden)
	}
}

func TestSearchFragmentForHtmx(t *testing.T) {
	t.Parallel()
	a := newPromptsApp(t)
	ann := a.signIn(t, "ann@example.com")
	poem := a.createPrompt(t, ann, promptForm("Write a poem about autumn", "Poem about {{season}}.", Public, "creative"))
	russian := a.createPrompt(t, ann, promptForm("Письмо начальнику", "Напиши письмо о {{тема}}.", Public, "writing"))
	a.createPrompt(t, ann, promptForm("Explain recursion", "Explain recursion.", Public, "coding"))

	c := a.Client()
	// Without JavaScript: the form's GET gives the whole page.
	full := c.Get("/prompts?q=poem")
	doc := full.Doc(t)
	if got := cardIDs(doc); !slices.Equal(got, []string{poem}) {
		t.Fatalf("search poem: %v", got)
	}
	if v, _ := doc.Find(testID("search-input")).Attr("value"); v != "poem" {
		t.Errorf("search box value %q", v)
	}
	input := doc.Find(testID("search-input"))
	if input.AttrOr("hx-get", "") != "/prompts" || !strings.Contains(input.AttrOr("hx-trigger", ""), "delay:300ms") ||
		input.AttrOr("hx-target", "") != "#prompt-results" || input.AttrOr("hx-push-url", "") != "true" {
		t.Error("the search box is not wired for search as you type")
	}

	// htmx: only the results region, with links that keep the search.
	res := c.Get("/prompts?q="+url.QueryEscape("пись"), htmxPartial...)
	if res.StatusCode != http.StatusOK || strings.Contains(res.Body, "<html") || strings.Contains(res.Body, "prompt-search") {
		t.Fatalf("htmx search: %d, a whole page or the search form came back", res.StatusCode)
	}
	frag := res.Doc(t)
	if got := cardIDs(frag); !slices.Equal(got, []string{russian}) {
		t.Fatalf("search пись (a Russian prefix): %v", got)
	}
	if got := frag.Find(testID("prompt-link") + " mark").Text(); got != "Пись" {
		t.Errorf("the title's found word is marked %q", got)
	}
	if frag.Find(testID("search-note")).Length() != 1 || frag.Find(testID("prompt-list")).Length() != 1 {
		t.Error("the fragment lacks the search note or the list")
	}
	if href := chipHref(t, frag, "writing"); href != "/prompts?q="+url.QueryEscape("пись")+"&tag=writing" {
		t.Errorf("chip in the search results links to %q", href)
	}
	if !strings.Contains(res.Header.Get("Vary"), "HX-Request") {
		t.Error("no Vary: HX-Request")
	}
}

func TestLoadMoreFragmentAndLink(t *testing.T) {
	t.Parallel()
	a := newPromptsApp(t)
	for i := range 33 {
		a.mustCreate(t, "auth:writer", Input{Title: fmt.Sprintf("Prompt %02d", i), Text: "Text", Visibility: Public})
	}
	c := a.Client()
	doc := c.Get("/prompts").Doc(t)
	if n := len(cardIDs(doc)); n != 30 {
		t.Fatalf("first page has %d cards", n)
	}
	more := doc.Find(testID("load-more"))
	href, _ := more.Attr("href")
	if !strings.HasPrefix(href, "/prompts?cursor=") || more.Parent().AttrOr("hx-trigger", "") != "intersect once" {
		t.Fatalf("load more: %q", href)
	}
	chunk := c.Get(href, htmxPartial...)
	if chunk.StatusCode != http.StatusOK || strings.Contains(chunk.Body, "<ul") || strings.Contains(chunk.Body, "prompt-results") {
		t.Fatalf("htmx load more: %d\n%s", chunk.StatusCode, chunk.Body)
	}
	if n := strings.Count(chunk.Body, `data-testid="prompt-card"`); n != 3 {
		t.Errorf("load more brought %d cards, want 3", n)
	}
	page := c.Get(href).Doc(t)
	if len(cardIDs(page)) != 3 || page.Find(testID("first-page")).AttrOr("href", "") != "/prompts" {
		t.Error("the plain load-more link does not open the next page")
	}
}

func TestBadCursorIs400(t *testing.T) {
	t.Parallel()
	a := newPromptsApp(t)
	for i := range 31 {
		a.mustCreate(t, "auth:writer", Input{Title: fmt.Sprintf("Prompt %02d", i), Text: "Text", Tags: []string{"data"}, Visibility: Public})
	}
	ann := a.signIn(t, "ann@example.com")
	if res := ann.c.Get("/prompts?cursor=forged"); res.StatusCode != http.StatusBadRequest {
		t.Errorf("forged cursor: %d", res.StatusCode)
	}
	next, _ := ann.c.Get("/prompts").Doc(t).Find(testID("load-more")).Attr("href")
	token := strings.TrimPrefix(next, "/prompts?cursor=")
	if token == next || token == "" {
		t.Fatalf("no cursor in %q", next)
	}
	// A newest-first token is refused by another listing.
	if res := ann.c.Get("/prompts?tag=data&cursor=" + token); res.StatusCode != http.StatusBadRequest {
		t.Errorf("newest cursor on the tag listing: %d", res.StatusCode)
	}
	if res := ann.c.Get("/prompts/mine?cursor=" + token); res.StatusCode != http.StatusBadRequest {
		t.Errorf("catalog cursor on My prompts: %d", res.StatusCode)
	}
	if res := ann.c.Get("/prompts?cursor=forged", htmxPartial...); res.StatusCode != http.StatusBadRequest || strings.Contains(res.Body, "<html") {
		t.Errorf("forged cursor from htmx: %d", res.StatusCode)
	}
}

func TestPromptPageShowsPrompt(t *testing.T) {
	t.Parallel()
	a := newPromptsApp(t)
	ann := a.signIn(t, "ann@example.com")
	id := a.createPrompt(t, ann, promptForm("Meeting notes", "Turn these notes into actions.", Public, "productivity", "business"))

	doc := a.Client().Get("/prompts/" + id).Doc(t)
	if doc.Find(testID("prompt-title")).Text() != "Meeting notes" || doc.Find(testID("prompt-text")).Text() != "Turn these notes into actions." {
		t.Fatal("title or text missing")
	}
	if got := doc.Find(testID("prompt-author")).Text(); !strings.Contains(got, "ann") {
		t.Errorf("author %q", got)
	}
	if got := doc.Find(testID("prompt-tags")).Text(); got != "ProductivityBusiness" {
		t.Errorf("tags %q", got)
	}
	if doc.Find(testID("prompt-created")).AttrOr("datetime", "") == "" || doc.Find(testID("prompt-updated")).Length() != 0 {
		t.Error("dates: created without datetime, or updated shown for a new prompt")
	}
	copyButton := doc.Find(testID("copy-prompt"))
	if copyButton.AttrOr("data-copy", "") != "prompt-text" || copyButton.AttrOr("hidden", "x") == "x" {
		t.Error("the copy button is missing, or shown without JavaScript")
	}
	if doc.Find(testID("copy-status")).AttrOr("aria-live", "") != "polite" {
		t.Error("the copy confirmation is not announced")
	}
	if doc.Find(`script[src^="/static/js/prompts."]`).Length() != 1 {
		t.Error("prompts.js is not loaded")
	}
	if doc.Find(testID("signin-to-vote")).Length() != 1 || doc.Find(testID("vote-like")).Length() != 0 {
		t.Error("a visitor is not invited to sign in to vote")
	}
	if doc.Find(testID("prompt-owner-actions")).Length() != 0 {
		t.Error("a visitor is offered Edit and Delete")
	}
	if doc.Find(testID("prompt-variables")).Length() != 0 {
		t.Error("a text without placeholders has a variables form")
	}
	// Russian: tag names and texts follow the language.
	ru := a.Client()
	ru.PostForm("/lang", ru.WithCSRF("/", url.Values{"lang": {"ru"}, "next": {"/"}}))
	if got := ru.Get("/prompts/" + id).Doc(t).Find(testID("prompt-tags")).Text(); got != "ПродуктивностьБизнес" {
		t.Errorf("Russian tags %q", got)
	}
}

func TestPromptPageFillsVariablesWithoutJS(t *testing.T) {
	t.Parallel()
	a := newPromptsApp(t)
	ann := a.signIn(t, "ann@example.com")
	text := "Write a {{ tone }} poem about {{topic}} in {{Язык}}.\nAgain {{topic}}; not {{bad!}} nor {{}}."
	id := a.createPrompt(t, ann, promptForm("Poem", text, Public))
	c := a.Client()

	doc := c.Get("/prompts/" + id).Doc(t)
	form := doc.Find(testID("variables-form"))
	if form.AttrOr("method", "") != "get" || form.AttrOr("action", "") != "/prompts/"+id {
		t.Fatal("the variables form is not a GET form to the page")
	}
	var names []string
	form.Find(testID("variable-input")).Each(func(_ int, s *goquery.Selection) {
		id, _ := s.Attr("id")
		if doc.Find(`label[for="`+id+`"]`).Length() != 1 {
			t.Errorf("input %s has no label", id)
		}
		names = append(names, s.AttrOr("data-var", ""))
	})
	if !slices.Equal(names, []string{"tone", "topic", "Язык"}) {
		t.Fatalf("variables %q", names)
	}
	q := url.Values{"v.topic": {"cats"}, "v.Язык": {"French"}}
	doc = c.Get("/prompts/" + id + "?" + q.Encode()).Doc(t)
	want := "Write a {{ tone }} poem about cats in French.\nAgain cats; not {{bad!}} nor {{}}."
	if got := doc.Find(testID("prompt-filled")).Text(); got != want {
		t.Errorf("filled text\n%q, want\n%q", got, want)
	}
	if v, _ := doc.Find(`input[data-var="topic"]`).Attr("value"); v != "cats" {
		t.Errorf("topic input keeps %q", v)
	}
	if doc.Find(testID("prompt-text")).Text() != text {
		t.Error("the original text changed")
	}
	if doc.Find(testID("copy-filled")).AttrOr("data-copy", "") != "prompt-filled" {
		t.Error("no Copy filled button")
	}
}

// TestVariableValuesAreBounded: a prompt may repeat a placeholder
// hundreds of times, so a value past MaxValue, or values that fill the
// text past its bound, get a 400 with the reason instead of a page of
// megabytes; a value at the bound fills as usual.
func TestVariableValuesAreBounded(t *testing.T) {
	t.Parallel()
	a := newPromptsApp(t)
	ann := a.signIn(t, "ann@example.com")
	id := a.createPrompt(t, ann, promptForm("Echo", strings.Repeat("{{x}}", 500), Public))
	few := a.createPrompt(t, ann, promptForm("Say", "Say {{x}}.", Public))
	visitor := a.Client()
	get := func(id string, value string) *webtest.Response {
		return visitor.Get("/prompts/" + id + "?" + url.Values{"v.x": {value}}.Encode())
	}
	if res := get(few, strings.Repeat("я", MaxValue)); res.StatusCode != http.StatusOK || !strings.Contains(res.Doc(t).Find(testID("prompt-filled")).Text(), strings.Repeat("я", MaxValue)) {
		t.Fatalf("a value at the bound: %d", res.StatusCode)
	}
	res := get(few, strings.Repeat("я", MaxValue+1))
	if res.StatusCode != http.StatusBadRequest || !strings.Contains(res.Body, "at most 500 characters") {
		t.Fatalf("a value past the bound: %d", res.StatusCode)
	}
	if res := get(id, strings.Repeat("&", 100)); res.StatusCode != http.StatusBadRequest || len(res.Body) > 100_000 {
		t.Fatalf("500 placeholders of 100 characters: %d, %d bytes", res.StatusCode, len(res.Body))
	}
	if res := get(id, "ok"); res.StatusCode != http.StatusOK {
		t.Fatalf("500 placeholders of 2 characters: %d", res.StatusCode)
	}
	if got := get(few, "").Doc(t).Find(testID("variable-input")).AttrOr("maxlength", ""); got != strconv.Itoa(MaxValue) {
		t.Errorf("the input's maxlength is %q", got)
	}
}

func TestPlaceholders(t *testing.T) {
	t.Parallel()
	cases := []struct {
		text  string
		names []string
	}{
		{"none here", nil},
		{"{{a}} {{ a }} {{b}}", []string{"a", "b"}},
		{"{{first name}} and {{last-name}} and {{x_1}}", []string{"first name", "last-name", "x_1"}},
		{"{{тема}} и {{話題}}", []string{"тема", "話題"}},
		{"{{a.b}} {{ }} {{}} {{a{b}} {{{c}}}", []string{"c"}},
		{"{{" + strings.Repeat("x", 65) + "}}", nil},
	}
	for _, tc := range cases {
		if got := variablesOf(tc.text); !slices.Equal(got, tc.names) {
			t.Errorf("variablesOf(%q) = %q, want %q", tc.text, got, tc.names)
		}
	}
	if got := fillVariables("{{ a }}-{{a}}-{{b}}", map[string]string{"a": "1", "b": ""}); got != "1-1-{{b}}" {
		t.Errorf("fill: %q", got)
	}
}

// FuzzFillVariables holds the placeholder parser to its promises on any
// text: every name it finds is valid, and filling every variable leaves
// none of them behind.
func FuzzFillVariables(f *testing.F) {
	for _, s := range []string{"{{a}}", "{{ тема }} {{b}}", "{{{{x}}}}", "{{a}b}}", "plain"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		names := variablesOf(text)
		values := map[string]string{}
		for _, n := range names {
			if placeholderName("{{"+n+"}}") != n {
				t.Fatalf("found an invalid name %q", n)
			}
			values[n] = "#"
		}
		if filled := fillVariables(text, values); len(variablesOf(filled)) != 0 {
			t.Fatalf("%q still holds variables %q after filling", filled, variablesOf(filled))
		}
	})
}

func TestPrivatePromptIs404ForOthers(t *testing.T) {
	t.Parallel()
	a := newPromptsApp(t)
	ann := a.signIn(t, "ann@example.com")
	secret := a.createPrompt(t, ann, promptForm("Secret recipe", "Only mine.", Private))
	bob := a.signIn(t, "bob@example.com")

	for name, c := range map[string]*webtest.Client{"visitor": a.Client(), "bob": bob.c} {
		res := c.Get("/prompts/" + secret)
		if res.StatusCode != http.StatusNotFound || strings.Contains(res.Body, "Secret recipe") {
			t.Errorf("%s on a private prompt: %d", name, res.StatusCode)
		}
	}
	if res := post(t, bob.c, "/prompts/"+secret+"/vote", url.Values{"value": {"like"}}); res.StatusCode != http.StatusNotFound {
		t.Errorf("bob voting on a private prompt: %d", res.StatusCode)
	}
	for _, path := range []string{"/prompts/" + secret + "/edit"} {
		if res := bob.c.Get(path); res.StatusCode != http.StatusNotFound {
			t.Errorf("bob on %s: %d", path, res.StatusCode)
		}
	}
	res := ann.c.Get("/prompts/" + secret)
	if res.StatusCode != http.StatusOK || res.Doc(t).Find(testID("private-badge")).Length() != 1 {
		t.Errorf("the author on their private prompt: %d", res.StatusCode)
	}
	if n := len(cardIDs(a.Client().Get("/prompts").Doc(t))); n != 0 {
		t.Errorf("the catalog lists %d private prompts", n)
	}
	for _, path := range []string{"/prompts/not-a-prompt", "/prompts/01ARZ3NDEKTSV4RRFFQ69G5FAV"} {
		if res := bob.c.Get(path); res.StatusCode != http.StatusNotFound {
			t.Errorf("GET %s: %d", path, res.StatusCode)
		}
	}
}

func TestCreateFormErrorsAre422AndWriteNothing(t *testing.T) {
	t.Parallel()
	a := newPromptsApp(t)
	ann := a.signIn(t, "ann@example.com")
	page := ann.c.Get("/prompts/new").Doc(t)
	if page.Find(testID("tag-choices")+` input[name="tag"]`).Length() != len(DefaultTags) ||
		page.Find(`input[name="visibility"][value="public"]`).AttrOr("checked", "no") == "no" {
		t.Fatal("the new prompt form lacks the tags or the public default")
	}
	if page.Find(`label[for="prompt-title"]`).Length() != 1 || page.Find(`label[for="prompt-text"]`).Length() != 1 {
		t.Error("title or text has no label")
	}
	if page.Find("#prompt-title").AttrOr("maxlength", "") != "200" || page.Find("#prompt-text").AttrOr("maxlength", "") != "3000" {
		t.Error("maxlength missing")
	}

	cases := []struct {
		name  string
		form  url.Values
		field string // the id whose error is shown
	}{
		{"no title", promptForm("  ", "Text", Public), "prompt-title"},
		{"long title", promptForm(strings.Repeat("я", 201), "Text", Public), "prompt-title"},
		{"no text", promptForm("Title", "", Public), "prompt-text"},
		{"long text", promptForm("Title", strings.Repeat("x", 3001), Public), "prompt-text"},
		{"unknown tag", promptForm("Title", "Text", Public, "nonsense"), "prompt-tags"},
		{"eleven tags", promptForm("Title", "Text", Public, "writing", "coding", "marketing", "education", "research", "productivity", "creative", "business", "translation", "data", "design"), "prompt-tags"},
		{"bad visibility", promptForm("Title", "Text", "everyone"), "prompt-visibility"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			res := post(t, ann.c, "/prompts", tc.form)
			if res.StatusCode != http.StatusUnprocessableEntity {
				t.Fatalf("status %d, want 422", res.StatusCode)
			}
			doc := res.Doc(t)
			if doc.Find(testID("error-summary")).Length() != 1 {
				t.Error("no error summary")
			}
			if doc.Find("#"+tc.field+"-error").Length() != 1 {
				t.Errorf("no error for %s", tc.field)
			}
			if tc.field == "prompt-title" || tc.field == "prompt-text" {
				field := doc.Find("#" + tc.field)
				if !strings.Contains(field.AttrOr("aria-describedby", ""), tc.field+"-error") || field.AttrOr("aria-invalid", "") != "true" {
					t.Errorf("%s is not tied to its error", tc.field)
				}
				if _, ok := field.Attr("autofocus"); !ok {
					t.Errorf("%s does not take the focus", tc.field)
				}
			} else {
				// A group of boxes: its fieldset points to the error, its
				// first box takes the focus and the summary leads to it.
				group := doc.Find("#" + tc.field + "-error").Closest("fieldset")
				if !strings.Contains(group.AttrOr("aria-describedby", ""), tc.field+"-error") || group.Find(`input[aria-invalid="true"]`).Length() == 0 {
					t.Errorf("%s is not tied to its error", tc.field)
				}
				if _, ok := group.Find("input").First().Attr("autofocus"); !ok {
					t.Errorf("%s does not take the focus", tc.field)
				}
			}
			link := doc.Find(testID("error-summary")+" a").AttrOr("href", "")
			if !strings.HasPrefix(link, "#"+tc.field) || doc.Find(link).Length() != 1 {
				t.Errorf("the summary leads to %q", link)
			}
			// The input comes back.
			if v, _ := doc.Find("#prompt-title").Attr("value"); v != tc.form.Get("title") {
				t.Errorf("title refilled as %q", v)
			}
			if got := doc.Find("#prompt-text").Text(); got != tc.form.Get("text") {
				t.Errorf("text refilled as %q", got)
			}
		})
	}
	if mine, err := a.svc.ListMine(ctx, ann.key, nil); err != nil || len(mine.Prompts) != 0 {
		t.Fatalf("invalid input wrote %d prompts (%v)", len(mine.Prompts), err)
	}
	if n := len(cardIDs(a.Client().Get("/prompts").Doc(t))); n != 0 {
		t.Errorf("the catalog lists %d prompts", n)
	}
}

func TestDuplicateTitleIs409(t *testing.T) {
	t.Parallel()
	a := newPromptsApp(t)
	ann := a.signIn(t, "ann@example.com")
	a.createPrompt(t, ann, promptForm("Weekly Report", "Text one", Public))
	a.Clock.Advance(time.Minute)
	res := post(t, ann.c, "/prompts", promptForm("  weekly   report ", "Text two", Public))
	if res.StatusCode != http.StatusConflict {
		t.Fatalf("same normalised title: %d, want 409", res.StatusCode)
	}
	doc := res.Doc(t)
	if msg := doc.Find("#prompt-title-error").Text(); !strings.Contains(msg, "already have a prompt with this title") {
		t.Errorf("message %q", msg)
	}
	if mine, _ := a.svc.ListMine(ctx, ann.key, nil); len(mine.Prompts) != 1 {
		t.Errorf("%d prompts after the duplicate, want 1", len(mine.Prompts))
	}
	// Another author may use the title.
	bob := a.signIn(t, "bob@example.com")
	a.createPrompt(t, bob, promptForm("Weekly Report", "Bob's", Public))
}

func TestCreateRateLimitIs429(t *testing.T) {
	t.Parallel()
	a := newPromptsApp(t)
	ann := a.signIn(t, "ann@example.com")
	a.createPrompt(t, ann, promptForm("First", "Text", Public))
	a.Clock.Advance(10 * time.Second)
	res := post(t, ann.c, "/prompts", promptForm("Second", "Text", Public))
	if res.StatusCode != http.StatusTooManyRequests {
		t.Fatalf("second prompt after 10 s: %d, want 429", res.StatusCode)
	}
	if got := res.Header.Get("Retry-After"); got != "20" {
		t.Errorf("Retry-After %q, want 20", got)
	}
	doc := res.Doc(t)
	if msg := doc.Find(testID("form-problem")).Text(); !strings.Contains(msg, "Wait 20 more seconds") {
		t.Errorf("message %q", msg)
	}
	if v, _ := doc.Find("#prompt-title").Attr("value"); v != "Second" {
		t.Error("the input was not kept")
	}
	a.Clock.Advance(21 * time.Second)
	if res := post(t, ann.c, "/prompts", promptForm("Second", "Text", Public)); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("after the wait: %d", res.StatusCode)
	}
}

// revisionOf scrapes the hidden revision of an edit form.
func revisionOf(t *testing.T, c *webtest.Client, id string) string {
	t.Helper()
	res := c.Get("/prompts/" + id + "/edit")
	rev, ok := res.Doc(t).Find(`input[name="revision"]`).Attr("value")
	if res.StatusCode != http.StatusOK || !ok {
		t.Fatalf("edit form: %d", res.StatusCode)
	}
	return rev
}

func TestStaleEditIs409WithMessage(t *testing.T) {
	t.Parallel()
	a := newPromptsApp(t)
	ann := a.signIn(t, "ann@example.com")
	id := a.createPrompt(t, ann, promptForm("Original", "Text", Public, "writing"))
	tab1, tab2 := revisionOf(t, ann.c, id), revisionOf(t, ann.c, id)

	edit := func(rev, title string) *webtest.Response {
		form := promptForm(title, "Edited text", Public, "writing")
		form.Set("revision", rev)
		return post(t, ann.c, "/prompts/"+id, form)
	}
	if res := edit(tab1, "First tab"); res.StatusCode != http.StatusSeeOther || res.Header.Get("Location") != "/prompts/"+id {
		t.Fatalf("first edit: %d %q", res.StatusCode, res.Header.Get("Location"))
	}
	res := edit(tab2, "Second tab")
	if res.StatusCode != http.StatusConflict {
		t.Fatalf("stale edit: %d, want 409", res.StatusCode)
	}
	doc := res.Doc(t)
	problem := doc.Find(testID("form-problem"))
	if !strings.Contains(problem.Text(), "changed elsewhere") || problem.AttrOr("role", "") != "alert" {
		t.Errorf("problem %q", problem.Text())
	}
	if href, _ := doc.Find(testID("reload-latest")).Attr("href"); href != "/prompts/"+id+"/edit" {
		t.Errorf("reload link %q", href)
	}
	if v, _ := doc.Find("#prompt-title").Attr("value"); v != "Second tab" {
		t.Errorf("the second tab's input is lost: %q", v)
	}
	if v, _ := doc.Find(`input[name="revision"]`).Attr("value"); v != tab2 {
		t.Error("the stale form's revision changed, so a resubmit would overwrite")
	}
	if got := a.Client().Get("/prompts/" + id).Doc(t).Find(testID("prompt-title")).Text(); got != "First tab" {
		t.Errorf("title %q: the stale edit overwrote", got)
	}
	for _, rev := range []string{"", "abc", "0", "-3"} {
		form := promptForm("No revision", "Text", Public)
		if rev != "" {
			form.Set("revision", rev)
		}
		res := post(t, ann.c, "/prompts/"+id, form)
		if res.StatusCode != http.StatusBadRequest || !strings.Contains(res.Body, "nothing was saved") {
			t.Errorf("edit with revision %q: %d", rev, res.StatusCode)
		}
	}
	if got := a.Client().Get("/prompts/" + id).Doc(t).Find(testID("prompt-title")).Text(); got != "First tab" {
		t.Errorf("title %q after edits without a valid revision", got)
	}
}

func TestEditKeepsRetiredTagAndDelete(t *testing.T) {
	t.Parallel()
	a := newPromptsApp(t)
	ann := a.signIn(t, "ann@example.com")
	id := a.createPrompt(t, ann, promptForm("Tagged", "Text", Public, "fun"))
	if err := a.svc.UpdateTag(ctx, "fun", "Fun", "Развлечения", false); err != nil {
		t.Fatal(err)
	}
	doc := ann.c.Get("/prompts/" + id + "/edit").Doc(t)
	fun := doc.Find(`input[name="tag"][value="fun"]`)
	if fun.Length() != 1 || fun.AttrOr("checked", "no") == "no" {
		t.Fatal("the retired tag is not kept on the edit form")
	}
	if doc.Find(`input[name="tag"][value="writing"]`).AttrOr("checked", "no") != "no" {
		t.Error("an unchosen tag is checked")
	}
	if n := ann.c.Get("/prompts/new").Doc(t).Find(`input[name="tag"][value="fun"]`).Length(); n != 0 {
		t.Error("a new prompt is offered the retired tag")
	}
	// The page still names the retired tag.
	if got := a.Client().Get("/prompts/" + id).Doc(t).Find(testID("prompt-tags")).Text(); got != "Fun" {
		t.Errorf("tags on the page %q", got)
	}
	a.Clock.Advance(24 * time.Hour)
	form := promptForm("Tagged and edited", "New text", Private, "fun", "data")
	form.Set("revision", revisionOf(t, ann.c, id))
	if res := post(t, ann.c, "/prompts/"+id, form); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("edit keeping the retired tag: %d", res.StatusCode)
	}
	page := ann.c.Get("/prompts/" + id).Doc(t)
	if page.Find(testID("flash")).Length() != 1 || page.Find(testID("prompt-updated")).Text() != day(ctx, a.Clock.Now()) || page.Find(testID("private-badge")).Length() != 1 {
		t.Error("after the edit: no flash, no updated date or no private badge")
	}

	if res := post(t, a.signIn(t, "bob@example.com").c, "/prompts/"+id+"/delete", nil); res.StatusCode != http.StatusNotFound {
		t.Errorf("someone else deleting: %d", res.StatusCode)
	}
	if page.Find(testID("delete-prompt-form")).AttrOr("method", "") != "post" || page.Find(testID("delete-prompt")+" summary").Length() != 1 {
		t.Error("delete is not a confirmed POST form")
	}
	res := post(t, ann.c, "/prompts/"+id+"/delete", nil)
	if res.StatusCode != http.StatusSeeOther || res.Header.Get("Location") != "/prompts/mine" {
		t.Fatalf("delete: %d %q", res.StatusCode, res.Header.Get("Location"))
	}
	if res := ann.c.Get("/prompts/" + id); res.StatusCode != http.StatusNotFound {
		t.Errorf("deleted prompt: %d", res.StatusCode)
	}
}

func TestVoteHtmxSwapsCounts(t *testing.T) {
	t.Parallel()
	a := newPromptsApp(t)
	ann := a.signIn(t, "ann@example.com")
	id := a.createPrompt(t, ann, promptForm("Votable", "Text", Public))
	bob := a.signIn(t, "bob@example.com")

	page := bob.c.Get("/prompts/" + id).Doc(t)
	like := page.Find(testID("vote-like"))
	form := like.Closest("form")
	if form.AttrOr("action", "") != "/prompts/"+id+"/vote" || form.AttrOr("hx-post", "") != "/prompts/"+id+"/vote" || form.AttrOr("hx-target", "") != "#vote-widget" {
		t.Fatal("the like button is not an htmx form with a plain fallback")
	}
	if like.AttrOr("aria-pressed", "") != "false" || form.Find(`input[name="value"]`).AttrOr("value", "") != "like" {
		t.Fatal("like is pressed before voting")
	}

	vote := func(value string) *goquery.Document {
		t.Helper()
		res := post(t, bob.c, "/prompts/"+id+"/vote", url.Values{"value": {value}}, htmxPartial...)
		if res.StatusCode != http.StatusOK || strings.Contains(res.Body, "<html") {
			t.Fatalf("htmx vote %s: %d", value, res.StatusCode)
		}
		return res.Doc(t)
	}
	w := vote("like")
	if w.Find(testID("vote-widget")).AttrOr("id", "") != "vote-widget" || w.Find(testID("likes-count")).Text() != "1" ||
		w.Find(testID("vote-like")).AttrOr("aria-pressed", "") != "true" {
		t.Fatalf("after like: %s", w.Text())
	}
	// Pressing the current vote again takes it back.
	if v := w.Find(testID("vote-like")).Closest("form").Find(`input[name="value"]`).AttrOr("value", ""); v != "none" {
		t.Errorf("pressed like posts %q, want none", v)
	}
	w = vote("dislike")
	if w.Find(testID("likes-count")).Text() != "0" || w.Find(testID("dislikes-count")).Text() != "1" || w.Find(testID("vote-widget")).AttrOr("data-mine", "") != "dislike" {
		t.Fatalf("after dislike: %s", w.Text())
	}
	w = vote("none")
	if w.Find(testID("dislikes-count")).Text() != "0" || w.Find(testID("vote-widget")).AttrOr("data-mine", "") != "none" {
		t.Fatalf("after none: %s", w.Text())
	}
	if res := post(t, bob.c, "/prompts/"+id+"/vote", url.Values{"value": {"love"}}); res.StatusCode != http.StatusBadRequest {
		t.Errorf("unknown vote value: %d", res.StatusCode)
	}
}

func TestVoteWithoutJSRedirects(t *testing.T) {
	t.Parallel()
	a := newPromptsApp(t)
	ann := a.signIn(t, "ann@example.com")
	id := a.createPrompt(t, ann, promptForm("Votable", "Text", Public))
	bob := a.signIn(t, "bob@example.com")
	res := post(t, bob.c, "/prompts/"+id+"/vote", url.Values{"value": {"like"}})
	if res.StatusCode != http.StatusSeeOther || res.Header.Get("Location") != "/prompts/"+id {
		t.Fatalf("plain vote: %d %q", res.StatusCode, res.Header.Get("Location"))
	}
	page := bob.c.Get("/prompts/" + id).Doc(t)
	if page.Find(testID("likes-count")).Text() != "1" || page.Find(testID("vote-like")).AttrOr("aria-pressed", "") != "true" {
		t.Error("the page does not show bob's like")
	}
	// Others see the count without bob's vote.
	carol := a.signIn(t, "carol@example.com")
	page = carol.c.Get("/prompts/" + id).Doc(t)
	if page.Find(testID("likes-count")).Text() != "1" || page.Find(testID("vote-like")).AttrOr("aria-pressed", "") != "false" {
		t.Error("carol sees bob's vote as hers")
	}
	// Visitors must sign in.
	visitor := a.Client()
	if res := post(t, visitor, "/prompts/"+id+"/vote", url.Values{"value": {"like"}}); res.StatusCode != http.StatusUnauthorized {
		t.Errorf("visitor vote: %d", res.StatusCode)
	}
}

func TestAuthorCannotVote(t *testing.T) {
	t.Parallel()
	a := newPromptsApp(t)
	ann := a.signIn(t, "ann@example.com")
	id := a.createPrompt(t, ann, promptForm("Mine", "Text", Public))
	page := ann.c.Get("/prompts/" + id).Doc(t)
	if page.Find(testID("vote-like")).Length()+page.Find(testID("vote-dislike")).Length() != 0 {
		t.Error("the author is shown vote buttons")
	}
	if page.Find(testID("own-prompt-note")).Length() != 1 || page.Find(testID("prompt-owner-actions")).Length() != 1 {
		t.Error("the author sees no note or no Edit and Delete")
	}
	res := post(t, ann.c, "/prompts/"+id+"/vote", url.Values{"value": {"like"}})
	if res.StatusCode != http.StatusForbidden || !strings.Contains(res.Body, "own prompt") {
		t.Errorf("author vote: %d", res.StatusCode)
	}
	if got := ann.c.Get("/prompts/" + id).Doc(t).Find(testID("likes-count")).Text(); got != "0" {
		t.Errorf("likes %q after the refused vote", got)
	}
}

func TestMinePageListsOwnPrompts(t *testing.T) {
	t.Parallel()
	a := newPromptsApp(t)
	ann := a.signIn(t, "ann@example.com")
	bob := a.signIn(t, "bob@example.com")
	a.createPrompt(t, bob, promptForm("Bob's", "Text", Public))
	if doc := ann.c.Get("/prompts/mine").Doc(t); doc.Find(testID("prompts-empty")).Length() != 1 {
		t.Error("no empty state")
	}
	var ids []string
	for i := range 31 {
		visibility := Public
		if i%2 == 1 {
			visibility = Private
		}
		p := a.mustCreate(t, ann.key, Input{Title: fmt.Sprintf("Ann %02d", i), Text: "Text", Visibility: visibility})
		ids = append([]string{p.PromptID}, ids...)
	}
	doc := ann.c.Get("/prompts/mine").Doc(t)
	got := cardIDs(doc)
	if !slices.Equal(got, ids[:30]) {
		t.Fatalf("first page %v", got)
	}
	if n := doc.Find(testID("prompt-card") + " " + testID("private-badge")).Length(); n != 15 {
		t.Errorf("%d private badges, want 15", n)
	}
	if href, _ := doc.Find(testID("edit-prompt")).First().Attr("href"); href != "/prompts/"+ids[0]+"/edit" {
		t.Errorf("edit link %q", href)
	}
	more, _ := doc.Find(testID("load-more")).Attr("href")
	chunk := ann.c.Get(more, htmxPartial...)
	if got := cardIDs(chunk.Doc(t)); !slices.Equal(got, ids[30:]) {
		t.Errorf("load more %v", got)
	}
	if res := bob.c.Get(more); res.StatusCode != http.StatusBadRequest {
		t.Errorf("ann's cursor used by bob: %d", res.StatusCode)
	}
	if res := a.Client().Get("/prompts/mine"); res.StatusCode != http.StatusSeeOther || !strings.HasPrefix(res.Header.Get("Location"), "/signin") {
		t.Errorf("visitor on My prompts: %d", res.StatusCode)
	}
}

// promptAdminRoutes are the module's routes under /admin.
func promptAdminRoutes(t *testing.T, a *promptsApp) []string {
	t.Helper()
	var out []string
	for _, r := range a.Echo.Routes() {
		if strings.HasPrefix(r.Path, "/admin/") && r.Method != echo.RouteNotFound {
			out = append(out, r.Method+" "+r.Path)
		}
	}
	slices.Sort(out)
	want := []string{"GET /admin/tags", "POST /admin/tags", "POST /admin/tags/:tag", "POST /admin/tags/:tag/move"}
	if !slices.Equal(out, want) {
		t.Fatalf("admin routes %v, want %v", out, want)
	}
	return out
}

func TestAdminTagsRefuseNonAdmins(t *testing.T) {
	t.Parallel()
	a := newPromptsApp(t)
	member := a.signIn(t, "member@example.com")
	before, _ := a.svc.AllTags(ctx)
	form := url.Values{"tag": {"probe"}, "english": {"Probe"}, "russian": {"Проба"}, "direction": {"down"}}
	for _, route := range promptAdminRoutes(t, a) {
		method, pattern, _ := strings.Cut(route, " ")
		path := strings.ReplaceAll(pattern, ":tag", "writing")
		if method == http.MethodGet {
			if res := a.Client().Get(path); res.StatusCode != http.StatusSeeOther || !strings.HasPrefix(res.Header.Get("Location"), "/signin") {
				t.Errorf("visitor %s: %d, want a redirect to sign in", route, res.StatusCode)
			}
			if res := member.c.Get(path); res.StatusCode != http.StatusForbidden {
				t.Errorf("member %s: %d, want 403", route, res.StatusCode)
			}
			continue
		}
		if res := post(t, a.Client(), path, form); res.StatusCode != http.StatusUnauthorized {
			t.Errorf("visitor %s: %d, want 401", route, res.StatusCode)
		}
		if res := post(t, member.c, path, form); res.StatusCode != http.StatusForbidden {
			t.Errorf("member %s: %d, want 403", route, res.StatusCode)
		}
	}
	after, _ := a.svc.AllTags(ctx)
	if len(after) != len(before) || after[0].Tag != before[0].Tag || !after[0].IsActive {
		t.Error("a non-admin changed the tag catalog")
	}
}

func TestAdminTagsAddRenameDeactivateMove(t *testing.T) {
	t.Parallel()
	a := newPromptsApp(t)
	boss := a.signIn(t, bossEmail)
	res := boss.c.Get("/admin/tags")
	if res.StatusCode != http.StatusOK {
		t.Fatalf("GET /admin/tags: %d", res.StatusCode)
	}
	doc := res.Doc(t)
	if n := doc.Find(testID("tag-row")).Length(); n != len(DefaultTags) {
		t.Fatalf("%d tag rows", n)
	}
	if doc.Find(`label[for="tag-en-writing"]`).Length() != 1 || doc.Find(`#tag-en-writing`).AttrOr("form", "") != "tag-form-writing" {
		t.Error("a row's inputs lack labels or their form")
	}

	// Add: a bad slug, then a good tag, then the same again.
	if res := post(t, boss.c, "/admin/tags", url.Values{"tag": {"Bad Slug"}, "english": {"Bad"}}); res.StatusCode != http.StatusUnprocessableEntity ||
		res.Doc(t).Find("#add-tag-slug-error").Length() != 1 {
		t.Errorf("bad slug: %d", res.StatusCode)
	}
	res = post(t, boss.c, "/admin/tags", url.Values{"tag": {"poetry"}, "english": {"Poetry"}, "russian": {"Поэзия"}})
	if res.StatusCode != http.StatusSeeOther || res.Header.Get("Location") != "/admin/tags" {
		t.Fatalf("add: %d", res.StatusCode)
	}
	doc = boss.c.Get("/admin/tags").Doc(t)
	if doc.Find(testID("flash")).Length() != 1 || doc.Find(testID("tag-row")).Last().AttrOr("data-tag", "") != "poetry" {
		t.Fatal("the new tag is not last, or no flash")
	}
	res = post(t, boss.c, "/admin/tags", url.Values{"tag": {"poetry"}, "english": {"Poetry"}})
	if res.StatusCode != http.StatusConflict || !strings.Contains(res.Doc(t).Find("#add-tag-slug-error").Text(), "already has") {
		t.Errorf("adding again: %d", res.StatusCode)
	}

	// Rename, with a refused name first.
	if res := post(t, boss.c, "/admin/tags/poetry", url.Values{"english": {""}, "russian": {"Поэзия"}, "active": {"true"}}); res.StatusCode != http.StatusUnprocessableEntity ||
		res.Doc(t).Find("#tag-error-poetry").Length() != 1 {
		t.Errorf("empty English name: %d", res.StatusCode)
	}
	if res := post(t, boss.c, "/admin/tags/poetry", url.Values{"english": {"Verse"}, "russian": {"Стихи"}, "active": {"true"}}); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("rename: %d", res.StatusCode)
	}
	ann := a.signIn(t, "ann@example.com")
	id := a.createPrompt(t, ann, promptForm("A sonnet", "Text", Public, "poetry"))
	if got := a.Client().Get("/prompts").Doc(t).Find(testID("tag-chip") + `[data-tag="poetry"] span`).First().Text(); got != "Verse" {
		t.Errorf("renamed chip %q", got)
	}

	// Deactivate: gone from the choices and chips, still on the prompt.
	if res := post(t, boss.c, "/admin/tags/poetry", url.Values{"english": {"Verse"}, "russian": {"Стихи"}}); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("deactivate: %d", res.StatusCode)
	}
	if boss.c.Get("/admin/tags").Doc(t).Find(testID("tag-row")+`[data-tag="poetry"]`).AttrOr("data-active", "") != "false" {
		t.Error("the row does not show the tag inactive")
	}
	if ann.c.Get("/prompts/new").Doc(t).Find(`input[value="poetry"]`).Length() != 0 {
		t.Error("the retired tag is still a choice")
	}
	if a.Client().Get("/prompts").Doc(t).Find(testID("tag-chip")+`[data-tag="poetry"]`).Length() != 0 {
		t.Error("the retired tag is still a chip")
	}
	if got := a.Client().Get("/prompts/" + id).Doc(t).Find(testID("prompt-tags")).Text(); got != "Verse" {
		t.Errorf("the prompt shows %q", got)
	}

	// Move coding (second) up.
	res = post(t, boss.c, "/admin/tags/coding/move", url.Values{"direction": {"up"}})
	if res.StatusCode != http.StatusSeeOther || res.Header.Get("Location") != "/admin/tags#tag-coding" {
		t.Fatalf("move: %d %q", res.StatusCode, res.Header.Get("Location"))
	}
	rows := boss.c.Get("/admin/tags").Doc(t).Find(testID("tag-row"))
	if rows.Eq(0).AttrOr("data-tag", "") != "coding" || rows.Eq(1).AttrOr("data-tag", "") != "writing" {
		t.Error("coding did not move up")
	}
	if rows.Eq(0).Find(testID("tag-up")).Length() != 0 || rows.Last().Find(testID("tag-down")).Length() != 0 {
		t.Error("the ends offer moves past the end")
	}
	if res := post(t, boss.c, "/admin/tags/coding/move", url.Values{"direction": {"sideways"}}); res.StatusCode != http.StatusBadRequest {
		t.Errorf("bad direction: %d", res.StatusCode)
	}
	if res := post(t, boss.c, "/admin/tags/nope/move", url.Values{"direction": {"up"}}); res.StatusCode != http.StatusNotFound {
		t.Errorf("unknown tag: %d", res.StatusCode)
	}
}

// TestTheTagsPageStartsTheIndexRebuild: the tags page's rebuild button
// starts the prompts rebuild that the admin overview runs in the
// background (cmd/web's TestRebuildButtonsOfEveryModule runs it).
func TestTheTagsPageStartsTheIndexRebuild(t *testing.T) {
	t.Parallel()
	a := newPromptsApp(t)
	boss := a.signIn(t, bossEmail)
	if got := boss.c.Get("/admin/tags").Doc(t).Find(testID("reindex-form")).AttrOr("action", ""); got != "/admin/rebuild/"+a.svc.RebuildSubject() {
		t.Fatalf("the tags page's rebuild button posts to %q", got)
	}
}

func TestUnsafePromptRoutesNeedCSRF(t *testing.T) {
	t.Parallel()
	webtest.AssertUnsafeRoutesNeedCSRF(t, newPromptsApp(t).Echo)
}

// TestCatalogPageStorageBudget holds a catalog page (newest, 30 items) to
// issue 5's budget of 3 table queries, with 1,000 prompts over about
// three months: the tag catalog, and the current month's bucket.
func TestCatalogPageStorageBudget(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("creates 1,000 prompts")
	}
	a := newPromptsApp(t)
	tags := []string{"writing", "coding", "data", "research"}
	for i := range 1000 {
		// 2.5 hours apart: 1,000 prompts span about 104 days.
		a.Clock.Advance(150*time.Minute - CreateInterval - time.Second)
		in := Input{Title: fmt.Sprintf("Budget prompt %04d", i), Text: "Explain {{topic}}.", Tags: []string{tags[i%len(tags)]}, Visibility: Public}
		a.mustCreate(t, "auth:author"+strconv.Itoa(i%7), in)
	}
	ann := a.signIn(t, "ann@example.com")
	for name, c := range map[string]*webtest.Client{"visitor": a.Client(), "signed in": ann.c} {
		res := c.Get("/prompts")
		if n := len(cardIDs(res.Doc(t))); n != 30 {
			t.Fatalf("%s: %d cards", name, n)
		}
		t.Logf("%s: first page %s", name, res.Header.Get("X-Storage-Ops"))
		ops := res.StorageOps(t)
		if ops["queries"] > 3 || ops["writes"] != 0 {
			t.Errorf("%s: catalog page cost %s", name, res.Header.Get("X-Storage-Ops"))
		}
		more, _ := res.Doc(t).Find(testID("load-more")).Attr("href")
		next := c.Get(more, htmxPartial...)
		if ops := next.StorageOps(t); ops["queries"] > 3 {
			t.Errorf("%s: second page cost %s", name, next.Header.Get("X-Storage-Ops"))
		}
	}
}

// Visitors without a session share one rendering of the catalog and of a
// prompt page: the second visitor's page costs no storage call, and a
// change made through the app shows at once. Private prompts and
// signed-in pages are never shared.
func TestCatalogAndPromptPagesAreSharedWithVisitors(t *testing.T) {
	t.Parallel()
	a := newPromptsApp(t)
	ann := a.signIn(t, "ann@example.com")
	first := a.createPrompt(t, ann, promptForm("Summarise a meeting", "Summarise {{notes}}.", Public, "writing"))
	secret := a.createPrompt(t, ann, promptForm("Secret recipe", "Only mine.", Private))

	for _, path := range []string{"/prompts", "/prompts/" + first} {
		one := a.Client().Get(path)
		two := a.Client().Get(path)
		if one.StatusCode != http.StatusOK || two.Body != one.Body {
			t.Errorf("%s: two visitors got different pages (%d)", path, one.StatusCode)
		}
		if ops := two.StorageOps(t); ops["total"] != 0 {
			t.Errorf("%s: the second visitor's page cost %s, want nothing", path, two.Header.Get("X-Storage-Ops"))
		}
		if len(two.Cookies()) != 0 {
			t.Errorf("%s: a shared page set cookies %v", path, two.Cookies())
		}
	}

	second := a.createPrompt(t, ann, promptForm("Review my code", "Review {{code}}.", Public, "coding"))
	if got := cardIDs(a.Client().Get("/prompts").Doc(t)); !slices.Equal(got, []string{second, first}) {
		t.Errorf("after a new prompt the visitor's catalog is %v, want [%s %s]", got, second, first)
	}

	for range 2 {
		res := a.Client().Get("/prompts/" + secret)
		if res.StatusCode != http.StatusNotFound || res.StorageOps(t)["total"] == 0 {
			t.Errorf("a private prompt for a visitor: %d, cost %s; want 404 looked up each time",
				res.StatusCode, res.Header.Get("X-Storage-Ops"))
		}
	}
	mine := ann.c.Get("/prompts")
	if mine.StorageOps(t)["total"] == 0 || mine.Doc(t).Find(testID("new-prompt")).Length() != 1 {
		t.Errorf("a signed-in person got the shared catalog (cost %s)", mine.Header.Get("X-Storage-Ops"))
	}
}

// New prompts and votes are counted for the admin metrics page: a vote
// changed from like to dislike is the same vote, and a refused one is
// none.
func TestPromptsAndVotesAreCounted(t *testing.T) {
	t.Parallel()
	a := newPromptsApp(t)
	ann := a.signIn(t, "ann@example.com")
	id := a.createPrompt(t, ann, promptForm("Counted", "Text", Public))
	bob := a.signIn(t, "bob@example.com")
	for _, v := range []string{"like", "dislike"} {
		if res := post(t, bob.c, "/prompts/"+id+"/vote", url.Values{"value": {v}}); res.StatusCode != http.StatusSeeOther {
			t.Fatalf("vote %s: %d", v, res.StatusCode)
		}
	}
	if res := post(t, ann.c, "/prompts/"+id+"/vote", url.Values{"value": {"like"}}); res.StatusCode < 400 {
		t.Fatalf("the author's own vote: %d", res.StatusCode)
	}
	days, err := a.Metrics.Last(context.Background(), 1)
	if err != nil {
		t.Fatal(err)
	}
	if d := days[0]; d.Get(NewPrompts) != 1 || d.Get(PromptVotes) != 1 {
		t.Fatalf("counted %v, want 1 prompt and 1 vote", d.Counts)
	}
}

// TestRunInAnAssistant: a prompt's page opens it in ChatGPT, Claude,
// Copilot and Perplexity, in a new tab, its text the question there,
// escaped as a browser's encodeURIComponent escapes it; a prompt with
// variables sends the filled text; one longer than a link carries says
// to copy it instead, its links hidden.
func TestRunInAnAssistant(t *testing.T) {
	t.Parallel()
	a := newPromptsApp(t)
	ann := a.signIn(t, "ann@example.com")
	visitor := a.Client()
	run := func(path string) *goquery.Selection { return visitor.Get(path).Doc(t).Find(testID("prompt-run")) }
	question := func(link *goquery.Selection) string {
		u, err := url.Parse(link.AttrOr("href", ""))
		if err != nil {
			t.Fatal(err)
		}
		return u.Query().Get("q")
	}

	text := "Plan a week of dinners & lunches for 4: кашa + суп?"
	plain := a.createPrompt(t, ann, promptForm("Dinners", text, Public))
	r := run("/prompts/" + plain)
	links := r.Find(testID("prompt-run-link"))
	var names []string
	links.Each(func(_ int, l *goquery.Selection) {
		names = append(names, strings.TrimSpace(l.Contents().First().Text()))
		if question(l) != text || l.AttrOr("target", "") != "_blank" || !strings.Contains(l.AttrOr("rel", ""), "noopener") || strings.Contains(l.AttrOr("href", ""), "+") {
			t.Errorf("%s: %q", names[len(names)-1], l.AttrOr("href", ""))
		}
	})
	if !slices.Equal(names, []string{"ChatGPT", "Claude", "Copilot", "Perplexity"}) || links.First().AttrOr("href", "") != "https://chatgpt.com/?q="+strings.ReplaceAll(url.QueryEscape(text), "+", "%20") {
		t.Errorf("run links %q: %q", names, links.First().AttrOr("href", ""))
	}
	if _, hidden := r.Find(".prompt-run-links").Attr("hidden"); hidden || r.Find(testID("prompt-run-long")).AttrOr("hidden", "no") == "no" {
		t.Error("a short prompt's links are hidden, or it is called too long")
	}

	vars := a.createPrompt(t, ann, promptForm("Poem", "A poem about {{topic}}.", Public))
	if got := question(run("/prompts/" + vars + "?" + url.Values{"v.topic": {"cats"}}.Encode()).Find(testID("prompt-run-link")).First()); got != "A poem about cats." {
		t.Errorf("the filled prompt's question: %q", got)
	}

	long := a.createPrompt(t, ann, promptForm("Long", strings.Repeat("word ", runMost/5)+"!", Public))
	r = run("/prompts/" + long)
	if _, hidden := r.Find(".prompt-run-links").Attr("hidden"); !hidden || r.Find(testID("prompt-run-long")).AttrOr("hidden", "no") != "no" || !strings.Contains(r.Text(), "copy it") {
		t.Errorf("a prompt past %d characters: %q", runMost, r.Text())
	}
	// Its hidden links do not carry it: the page does not grow by four
	// copies of a long text.
	if href := r.Find(testID("prompt-run-link")).First().AttrOr("href", ""); href != "https://chatgpt.com/?q=" {
		t.Errorf("a hidden link carries %d bytes", len(href))
	}
}
