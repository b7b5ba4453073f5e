package richtext

import (
	"strings"
	"testing"
)

// A long source renders from the cache the second time, to the same
// HTML, and its XSS payloads are as harmless there.
func TestLongSourcesAreRenderedOnce(t *testing.T) {
	src := strings.Repeat("Some **bold** text with a [link](https://example.com). ", 40) + xssPayloads[0]
	key := keyOf("", src)
	if _, ok := rendered.Get(key); ok {
		t.Fatal("cached before the first render")
	}
	first := Render(src)
	cached, ok := rendered.Get(key)
	if !ok || cached != first {
		t.Fatalf("not cached after the first render (%v)", ok)
	}
	if Render(src) != first {
		t.Error("the second render differs")
	}
	assertSafe(t, src, string(first))
	short := "short *text*"
	Render(short)
	if _, ok := rendered.Get(keyOf("", short)); ok {
		t.Error("a short source was cached")
	}
}

// BenchmarkRender renders 20,000 characters (the forum's limit) of plain
// prose and of unmatched emphasis, uncached and cached.
func BenchmarkRender(b *testing.B) {
	for name, src := range map[string]string{
		"prose":      strings.Repeat("hello world ", 1667),
		"emphasis":   strings.Repeat("*a_", 6667),
		"blockquote": strings.Repeat(">", 20000),
	} {
		b.Run(name+"/uncached", func(b *testing.B) {
			for b.Loop() {
				members.render(src, nil)
			}
		})
		b.Run(name+"/cached", func(b *testing.B) {
			Render(src)
			for b.Loop() {
				Render(src)
			}
		})
	}
}
