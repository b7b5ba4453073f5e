// Package richtext renders what members write (forum posts, blog posts,
// event descriptions, chat messages) from Markdown to safe HTML, and to a
// plain excerpt for previews and notifications.
//
// Markdown is parsed by goldmark with GitHub's extensions (tables,
// strikethrough, task lists, bare links). Raw HTML in the source is never
// passed through, and the result is sanitised again by a bluemonday
// policy, so a gap in one layer is caught by the other. Links may point
// to http, https and mailto URLs or within the site, and every link gets
// rel="nofollow ugc noopener": search engines do not credit it to the
// site, and a page it opens cannot reach back into ours. Images are not
// shown: an image in a post is a tracking pixel anyone can plant, so only
// its alt text remains; a module that keeps its own uploads renders with
// WithPictures, which shows the images at their addresses and no other
// (the blog's pictures). Callers bound the length through their form
// rules.
package richtext

import (
	"bytes"
	"html"
	"html/template"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/microcosm-cc/bluemonday"
	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/renderer"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"
)

// LinkRel is the rel every rendered link carries.
const LinkRel = "nofollow ugc noopener"

var (
	markdown = newMarkdown(nil)
	policy   = newPolicy()
	members  = &Renderer{markdown: markdown, policy: policy}
)

// newMarkdown is the Markdown parser and renderer; pictures, when not
// nil, keeps the images whose address it matches.
func newMarkdown(pictures *regexp.Regexp) goldmark.Markdown {
	return goldmark.New(
		goldmark.WithExtensions(extension.GFM),
		goldmark.WithParserOptions(parser.WithASTTransformers(util.Prioritized(linkTransformer{keep: pictures}, 100), util.Prioritized(mentionTransformer{}, 200))),
		goldmark.WithRendererOptions(renderer.WithNodeRenderers(util.Prioritized(mentionRenderer{}, 500))),
	)
}

// Renderer renders Markdown to safe HTML: Render's, or WithPictures'.
type Renderer struct {
	markdown goldmark.Markdown
	policy   *bluemonday.Policy
	// salt keeps its cache entries apart from other renderers'.
	salt string
}

// WithPictures is a renderer that also shows the images whose address
// matches pictures: a module's own uploads (the blog's), never an
// address anyone could point elsewhere. Other images are their alt text,
// as with Render.
func WithPictures(pictures *regexp.Regexp) *Renderer {
	p := newPolicy()
	p.AllowAttrs("src").Matching(pictures).OnElements("img")
	p.AllowAttrs("alt").OnElements("img")
	return &Renderer{markdown: newMarkdown(pictures), policy: p, salt: pictures.String()}
}

func newPolicy() *bluemonday.Policy {
	p := bluemonday.UGCPolicy()
	p.AllowURLSchemes("http", "https", "mailto")
	p.RequireParseableURLs(true)
	p.AllowRelativeURLs(true)
	// The rel the renderer sets, and nothing else: no image, no class
	// games, no ids to clash with the page's.
	p.AllowAttrs("rel").Matching(regexp.MustCompile(`^` + LinkRel + `$`)).OnElements("a")
	p.AllowAttrs("checked", "disabled").OnElements("input")
	p.AllowAttrs("type").Matching(regexp.MustCompile(`^checkbox$`)).OnElements("input")
	p.AllowAttrs("align").Matching(regexp.MustCompile(`^(left|right|center)$`)).OnElements("th", "td")
	p.AllowElements("del")
	// A mention's mark (highlight.go), and no other class.
	p.AllowAttrs("class").Matching(regexp.MustCompile(`^mention$`)).OnElements("span")
	return p
}

// Render turns member Markdown into safe HTML. Long sources are cached
// (see cache.go): a page shows the same posts to every reader, and
// Markdown's cost grows faster than its length.
func Render(src string) template.HTML { return members.Render(src) }

// Render turns Markdown into safe HTML, through the cache.
func (r *Renderer) Render(src string) template.HTML { return r.Showing(src, nil) }

// Showing is Render showing only the pictures named (their addresses),
// when pictures is not nil: a post's own, so a picture deleted since
// shows as its alt text rather than as a broken image.
func (r *Renderer) Showing(src string, pictures []string) template.HTML {
	if len(src) < cacheFrom {
		return r.render(src, pictures)
	}
	salt := r.salt
	if pictures != nil {
		salt += "\x00" + strings.Join(pictures, "\x00")
	}
	key := keyOf(salt, src)
	if html, ok := rendered.Get(key); ok {
		return html
	}
	html := r.render(src, pictures)
	rendered.Put(key, html)
	return html
}

// picturesKey carries Showing's pictures to the link transformer.
var picturesKey = parser.NewContextKey()

func (r *Renderer) render(src string, pictures []string) template.HTML {
	var buf bytes.Buffer
	pc := parser.NewContext()
	if pictures != nil {
		pc.Set(picturesKey, pictures)
	}
	if err := r.markdown.Convert([]byte(src), &buf, parser.WithContext(pc)); err != nil {
		// goldmark fails only on a failing writer, and a buffer does not
		// fail; escaped text is still the right answer.
		return template.HTML(template.HTMLEscapeString(src))
	}
	return template.HTML(r.policy.SanitizeBytes(buf.Bytes()))
}

// hrefs finds the links in rendered HTML (the sanitiser writes every
// attribute double-quoted).
var hrefs = regexp.MustCompile(`<a href="([^"]*)"`)

// ExternalLinks counts the links to other sites src renders to: written
// out, bare (www.example.com), protocol-relative or mailto, whatever the
// Markdown that made them. Links within the site do not count. For
// limits on how many links a newcomer may post.
func ExternalLinks(src string) int {
	n := 0
	for _, m := range hrefs.FindAllStringSubmatch(string(Render(src)), -1) {
		u, err := url.Parse(html.UnescapeString(m[1]))
		if err != nil || u.Scheme != "" || u.Host != "" {
			n++
		}
	}
	return n
}

// linkTransformer gives links their rel and turns images into their alt
// text, but those whose address keep matches.
type linkTransformer struct{ keep *regexp.Regexp }

func (l linkTransformer) Transform(doc *ast.Document, _ text.Reader, pc parser.Context) {
	only, _ := pc.Get(picturesKey).([]string)
	var images []*ast.Image
	_ = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch n := n.(type) {
		case *ast.Link:
			n.SetAttributeString("rel", []byte(LinkRel))
		case *ast.AutoLink:
			n.SetAttributeString("rel", []byte(LinkRel))
		case *ast.Image:
			if l.keep == nil || !l.keep.Match(n.Destination) || only != nil && !slices.Contains(only, string(n.Destination)) {
				images = append(images, n)
			}
		}
		return ast.WalkContinue, nil
	})
	for _, img := range images {
		parent := img.Parent()
		for c := img.FirstChild(); c != nil; {
			next := c.NextSibling()
			parent.InsertBefore(parent, img, c)
			c = next
		}
		parent.RemoveChild(parent, img)
	}
}

// Plain is src as one line of plain text, markup removed, cut at a word
// boundary with "…" when longer than max characters (max ≤ 0: no cut).
func Plain(src string, max int) string {
	source := []byte(src)
	doc := markdown.Parser().Parse(text.NewReader(source))
	var b strings.Builder
	_ = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		switch n := n.(type) {
		case *ast.Text:
			if entering {
				b.Write(n.Segment.Value(source))
				if n.SoftLineBreak() || n.HardLineBreak() {
					b.WriteByte(' ')
				}
			}
		case *ast.String:
			if entering {
				b.Write(n.Value)
			}
		case *mentionNode:
			if entering {
				b.Write(n.word)
			}
		case *ast.AutoLink:
			if entering {
				b.Write(n.Label(source))
			}
		case *ast.CodeBlock, *ast.FencedCodeBlock:
			if entering {
				lines := n.Lines()
				for i := 0; i < lines.Len(); i++ {
					seg := lines.At(i)
					b.Write(seg.Value(source))
				}
			}
		case *ast.RawHTML, *ast.HTMLBlock:
			return ast.WalkSkipChildren, nil
		}
		if !entering && n.Type() == ast.TypeBlock {
			b.WriteByte(' ')
		}
		return ast.WalkContinue, nil
	})
	return cut(strings.Join(strings.Fields(b.String()), " "), max)
}

// cut shortens s to at most max characters at a word boundary, with "…".
func cut(s string, max int) string {
	if max <= 0 || utf8.RuneCountInString(s) <= max {
		return s
	}
	runes := []rune(s)
	end := max - 1
	if !unicode.IsSpace(runes[end]) {
		// The cut falls inside a word: back to the word's start, unless
		// that loses more than half.
		for i := end - 1; i > end/2; i-- {
			if unicode.IsSpace(runes[i]) {
				end = i
				break
			}
		}
	}
	return strings.TrimRightFunc(string(runes[:end]), func(r rune) bool { return unicode.IsSpace(r) || unicode.IsPunct(r) }) + "…"
}
