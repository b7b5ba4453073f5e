package richtext

import (
	"unicode"
	"unicode/utf8"

	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/renderer"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"
)

// Mentions stand out where they are written: "@Anna" renders as
// <span class="mention">@Anna</span>, as Zulip and Discourse show them.
// Only the word after "@" is marked ("@Anna Smith" marks "@Anna"): the
// renderer does not know who is in the chat or topic, and a first name
// is what people read as the mention. An "@" inside a word (an address),
// a link or code is left alone.

// kindMention is the mention node's kind.
var kindMention = ast.NewNodeKind("Mention")

// mentionNode is "@" and the word after it.
type mentionNode struct {
	ast.BaseInline
	word []byte
}

func (n *mentionNode) Kind() ast.NodeKind { return kindMention }

func (n *mentionNode) Dump(source []byte, level int) {
	ast.DumpHelper(n, source, level, map[string]string{"word": string(n.word)}, nil)
}

// mentionTransformer splits text nodes at their mentions.
type mentionTransformer struct{}

func (mentionTransformer) Transform(doc *ast.Document, reader text.Reader, _ parser.Context) {
	source := reader.Source()
	var texts []*ast.Text
	_ = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch n := n.(type) {
		case *ast.Link, *ast.AutoLink, *ast.CodeSpan, *ast.CodeBlock, *ast.FencedCodeBlock, *ast.RawHTML, *ast.HTMLBlock:
			return ast.WalkSkipChildren, nil
		case *ast.Text:
			texts = append(texts, n)
		}
		return ast.WalkContinue, nil
	})
	for _, t := range texts {
		splitMentions(t, source)
	}
}

// splitMentions replaces t by its text before, its mentions and the text
// between and after them.
func splitMentions(t *ast.Text, source []byte) {
	seg := t.Segment
	value := seg.Value(source)
	parent := t.Parent()
	start, changed := 0, false
	for i := 0; i < len(value); i++ {
		if value[i] != '@' || i > 0 && wordRune(lastRune(value[:i])) {
			continue
		}
		end := i + 1
		for end < len(value) {
			r, size := utf8.DecodeRune(value[end:])
			if !wordRune(r) {
				break
			}
			end += size
		}
		if end == i+1 || !unicode.IsLetter(firstRune(value[i+1:])) {
			continue
		}
		if i > start {
			parent.InsertBefore(parent, t, ast.NewTextSegment(text.NewSegment(seg.Start+start, seg.Start+i)))
		}
		parent.InsertBefore(parent, t, &mentionNode{word: value[i:end]})
		start, changed, i = end, true, end-1
	}
	if !changed {
		return
	}
	// What follows the last mention keeps t's line breaks.
	t.Segment = text.NewSegment(seg.Start+start, seg.Stop)
	if start == len(value) && !t.SoftLineBreak() && !t.HardLineBreak() {
		parent.RemoveChild(parent, t)
	}
}

func wordRune(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) || r == '_' }

func firstRune(b []byte) rune { r, _ := utf8.DecodeRune(b); return r }

func lastRune(b []byte) rune { r, _ := utf8.DecodeLastRune(b); return r }

// mentionRenderer writes a mention node.
type mentionRenderer struct{}

func (mentionRenderer) RegisterFuncs(reg renderer.NodeRendererFuncRegisterer) {
	reg.Register(kindMention, func(w util.BufWriter, _ []byte, n ast.Node, entering bool) (ast.WalkStatus, error) {
		if entering {
			_, _ = w.WriteString(`<span class="mention">`)
			_, _ = w.Write(util.EscapeHTML(n.(*mentionNode).word))
			_, _ = w.WriteString(`</span>`)
		}
		return ast.WalkSkipChildren, nil
	})
}
