package richtext

import (
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"
)

// xssPayloads are ways people try to get script into a page through
// Markdown and the HTML it lets through.
var xssPayloads = []string{
	`<script>alert(1)</script>`,
	`<img src=x onerror=alert(1)>`,
	`[click](javascript:alert(1))`,
	`[click](JAVASCRIPT:alert(1))`,
	`[click]( javascript:alert(1) )`,
	`[click](jav&#x09;ascript:alert(1))`,
	`[click](java&#x0A;script:alert(1))`,
	`[click](&#106;avascript:alert(1))`,
	`[click](vbscript:msgbox(1))`,
	`[click](data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==)`,
	`[click](file:///etc/passwd)`,
	`<javascript:alert(1)>`,
	`<a href="javascript:alert(1)">x</a>`,
	`<a href="https://example.org" onclick="alert(1)">x</a>`,
	`<svg onload=alert(1)>`,
	`<iframe src="https://evil.example"></iframe>`,
	`<object data="x.swf"></object><embed src="x.swf">`,
	`<p style="background:url(javascript:alert(1))">x</p>`,
	`<style>body{display:none}</style>`,
	`<div onmouseover="alert(1)">hover</div>`,
	"[x][1]\n\n[1]: javascript:alert(1)",
	`[x](https://example.org "a\" onmouseover=\"alert(1)")`,
	`[[x](javascript:alert(1))](https://example.org)`,
	`<!-- <script>alert(1)</script> -->`,
	`![x](javascript:alert(1))`,
	`![x" onerror="alert(1)](https://example.org/a.png)`,
	"```html\n<script>alert(1)</script>\n```",
	"`<script>alert(1)</script>`",
	`<math><mtext><table><mglyph><style><img src=x onerror=alert(1)>`,
	`<form action="https://evil.example"><input name=x></form>`,
	`<base href="https://evil.example/">`,
	`<meta http-equiv="refresh" content="0;url=https://evil.example">`,
	`[x](//evil.example/%0Ajavascript:alert(1))`,
	`<a href="&#x6A;avascript:alert(1)">x</a>`,
	"<details open ontoggle=alert(1)>",
	`| a |` + "\n|---|\n" + `| <img src=x onerror=alert(1)> |`,
}

// assertSafe fails when out holds anything a browser could run: a script,
// frame, object, style or form element, an event handler, a style
// attribute, or a link or source with a scheme other than http, https or
// mailto.
func assertSafe(t *testing.T, in, out string) {
	t.Helper()
	doc, err := goquery.NewDocumentFromReader(strings.NewReader(out))
	if err != nil {
		t.Fatalf("%q: unparseable output %q", in, out)
	}
	for _, tag := range []string{"script", "iframe", "object", "embed", "svg", "math", "style", "form", "base", "meta", "link", "img", "details"} {
		if doc.Find(tag).Length() > 0 {
			t.Errorf("%q rendered a <%s>: %s", in, tag, out)
		}
	}
	doc.Find("*").Each(func(_ int, s *goquery.Selection) {
		for _, a := range s.Nodes[0].Attr {
			name := strings.ToLower(a.Key)
			if strings.HasPrefix(name, "on") || name == "style" || name == "formaction" || name == "srcdoc" {
				t.Errorf("%q rendered attribute %s=%q: %s", in, a.Key, a.Val, out)
			}
			if name == "href" || name == "src" || name == "action" {
				assertSafeURL(t, in, a.Val, out)
			}
		}
	})
}

func assertSafeURL(t *testing.T, in, raw, out string) {
	t.Helper()
	// The parser has decoded the attribute already, as a browser does.
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil {
		t.Errorf("%q rendered an unparseable URL %q: %s", in, raw, out)
		return
	}
	switch strings.ToLower(u.Scheme) {
	case "", "http", "https", "mailto":
	default:
		t.Errorf("%q rendered a %s: URL: %s", in, u.Scheme, out)
	}
}

func TestXSSPayloadsRenderNothingExecutable(t *testing.T) {
	for _, in := range xssPayloads {
		assertSafe(t, in, string(Render(in)))
	}
}

func FuzzRender(f *testing.F) {
	for _, in := range xssPayloads {
		f.Add(in)
	}
	f.Fuzz(func(t *testing.T, in string) {
		assertSafe(t, in, string(Render(in)))
	})
}

func TestMarkdownRenders(t *testing.T) {
	cases := []struct{ in, want string }{
		{"# Title", "<h1>Title</h1>"},
		{"*em* and **strong** and ~~gone~~", "<em>em</em> and <strong>strong</strong> and <del>gone</del>"},
		{"- a\n- b", "<ul>\n<li>a</li>\n<li>b</li>\n</ul>"},
		{"```\n<b>x</b>\n```", "<pre><code>&lt;b&gt;x&lt;/b&gt;\n</code></pre>"},
		{"| a | b |\n|---|---|\n| 1 | 2 |", "<td>1</td>"},
		{"- [x] done", `<input checked="" disabled="" type="checkbox"`},
		{"Привет, **мир**", "Привет, <strong>мир</strong>"},
		{"![a cat](https://example.org/cat.png)", "<p>a cat</p>"},
		{"<b>raw</b> text", "raw text"},
	}
	for _, c := range cases {
		if got := string(Render(c.in)); !strings.Contains(got, c.want) {
			t.Errorf("%q → %q, want it to contain %q", c.in, got, c.want)
		}
	}
}

func TestLinksGetRel(t *testing.T) {
	for _, in := range []string{"[site](https://example.org/a?b=1)", "see https://example.org/x", "<https://example.org>", "[local](/groups/1)", "[mail](mailto:anna@example.org)"} {
		doc, _ := goquery.NewDocumentFromReader(strings.NewReader(string(Render(in))))
		a := doc.Find("a")
		if a.Length() != 1 {
			t.Errorf("%q: %d links", in, a.Length())
			continue
		}
		if rel, _ := a.Attr("rel"); rel != LinkRel {
			t.Errorf("%q: rel %q, want %q", in, rel, LinkRel)
		}
		if href, _ := a.Attr("href"); href == "" {
			t.Errorf("%q: no href", in)
		}
	}
}

// TestExternalLinks counts every way of writing a link to another site,
// and no link within the site, nor text that only looks like one.
func TestExternalLinks(t *testing.T) {
	for src, want := range map[string]int{
		"https://a.example http://b.example":                     2,
		"www.a.example and www.b.example":                        2,
		"[t](//a.example) [u](//b.example/x)":                    2,
		"[buy](HTTPS://a.example) <https://b.example>":           2,
		"[mail](mailto:anna@example.org) anna@example.org":       2,
		"[ref][r]\n\n[r]: https://a.example":                     1,
		"[topic](/forum/t/1) [here](#m-4) [rel](other/page)":     0,
		"`https://a.example` and\n\n    https://b.example\n":     0,
		"[x](javascript:alert(1)) [y](data:text/html,hi) https:": 0,
		"plain words, no links":                                  0,
	} {
		if got := ExternalLinks(src); got != want {
			t.Errorf("%q: %d external links, want %d", src, got, want)
		}
	}
}

func TestPlain(t *testing.T) {
	cases := []struct {
		in   string
		max  int
		want string
	}{
		{"# Dinner\n\nAt **Luigi's**, [map](https://example.org).\n\n- bring cake", 0, "Dinner At Luigi's, map. bring cake"},
		{"<script>x</script>\n\nHi <b>there</b>", 0, "Hi there"},
		{"one two three four five six", 14, "one two three…"},
		{"Встреча в субботу у метро", 15, "Встреча в…"},
		{"short", 10, "short"},
		{"```\ncode here\n```", 0, "code here"},
	}
	for _, c := range cases {
		if got := Plain(c.in, c.max); got != c.want {
			t.Errorf("Plain(%q, %d) = %q, want %q", c.in, c.max, got, c.want)
		}
	}
}

// A mention is marked where it is written, and nowhere it is not one.
func TestMentionsStandOut(t *testing.T) {
	t.Parallel()
	for src, want := range map[string]string{
		"Hi @Anna, see you":           `<p>Hi <span class="mention">@Anna</span>, see you</p>`,
		"@Борис и @Маша":              `<p><span class="mention">@Борис</span> и <span class="mention">@Маша</span></p>`,
		"**@Tom** look":               `<p><strong><span class="mention">@Tom</span></strong> look</p>`,
		"mail anna@example.com":       `<p>mail <a href="mailto:anna@example.com" rel="nofollow ugc noopener">anna@example.com</a></p>`,
		"a@b and `@code`":             `<p>a@b and <code>@code</code></p>`,
		"@ alone, @1 and @_x":         `<p>@ alone, @1 and @_x</p>`,
		"[@Anna](https://x.test)":     `<p><a href="https://x.test" rel="nofollow ugc noopener">@Anna</a></p>`,
		"line @Anna\nnext @Tom":       "<p>line <span class=\"mention\">@Anna</span>\nnext <span class=\"mention\">@Tom</span></p>",
		`<span class="x">@Eve</span>`: `<p><span class="mention">@Eve</span></p>`,
	} {
		if got := strings.TrimSpace(string(Render(src))); got != want {
			t.Errorf("Render(%q)\n got %s\nwant %s", src, got, want)
		}
	}
	if got := Plain("Hi @Anna, see you", 0); got != "Hi @Anna, see you" {
		t.Errorf("Plain keeps the mention's words: %q", got)
	}
	if got := string(Render(`<span class="evil" onclick="x()">hi</span>`)); strings.Contains(got, "evil") || strings.Contains(got, "onclick") {
		t.Errorf("a class other than a mention's passed: %s", got)
	}
}

// TestWithPicturesShowsOnlyItsOwn: a renderer with pictures shows the
// images at the addresses it allows, and any other image, however
// written, as its alt text; Render shows none.
func TestWithPicturesShowsOnlyItsOwn(t *testing.T) {
	own := regexp.MustCompile(`^/media/blog/[0-9A-Z]{26}/[0-9a-f]{32}(_s)?\.jpg$`)
	r := WithPictures(own)
	mine := "/media/blog/01ARZ3NDEKTSV4RRFFQ69G5FAV/0123456789abcdef0123456789abcdef.jpg"
	if got := string(r.Render("![The stage](" + mine + ")")); !strings.Contains(got, `<img src="`+mine+`" alt="The stage"`) {
		t.Errorf("its own picture: %s", got)
	}
	for _, src := range []string{
		"![pixel](https://tracker.example/p.gif)",
		"![up](/media/blog/01ARZ3NDEKTSV4RRFFQ69G5FAV/../../secret.jpg)",
		"![js](javascript:alert(1))",
		"![other](/media/people/auth:x/0123456789abcdef0123456789abcdef.jpg)",
		"![ref][r]\n\n[r]: https://tracker.example/p.gif",
		`<img src="` + mine + `" onerror="alert(1)">`,
	} {
		got := string(r.Render(src))
		if strings.Contains(got, "<img") || strings.Contains(got, "onerror") {
			t.Errorf("%q renders %s", src, got)
		}
	}
	if got := string(Render("![The stage](" + mine + ")")); strings.Contains(got, "<img") || !strings.Contains(got, "The stage") {
		t.Errorf("Render shows a picture: %s", got)
	}
	// The two renderers do not share cached HTML.
	long := strings.Repeat("words ", 300) + "![The stage](" + mine + ")"
	if strings.Contains(string(Render(long)), "<img") || !strings.Contains(string(r.Render(long)), "<img") || strings.Contains(string(Render(long)), "<img") {
		t.Error("a cached rendering crossed renderers")
	}
}

// TestShowingOnlyTheNamedPictures: Showing keeps the pictures named and
// turns the others, allowed addresses or not, into their alt text.
func TestShowingOnlyTheNamedPictures(t *testing.T) {
	r := WithPictures(regexp.MustCompile(`^/p/[a-z]+\.jpg$`))
	src := "![kept](/p/a.jpg) ![gone](/p/b.jpg)"
	got := string(r.Showing(src, []string{"/p/a.jpg"}))
	if !strings.Contains(got, `src="/p/a.jpg"`) || strings.Contains(got, "/p/b.jpg") || !strings.Contains(got, "gone") {
		t.Errorf("Showing: %s", got)
	}
	if got := string(r.Showing(src, []string{})); strings.Contains(got, "<img") {
		t.Errorf("Showing none: %s", got)
	}
	if got := string(r.Render(src)); strings.Count(got, "<img") != 2 {
		t.Errorf("Render with pictures: %s", got)
	}
}
