package richtext

import (
	"fmt"
	"html/template"
	"strings"
	"testing"
)

// A long source renders from the cache the second time, to the same
// HTML, and its XSS payloads are as harmless there.
func TestLongSourcesAreRenderedOnce(t *testing.T) {
	src := strings.Repeat("Some **bold** text with a [link](https://example.com). ", 40) + xssPayloads[0]
	key := keyOf(src)
	if _, ok := rendered.get(key); ok {
		t.Fatal("cached before the first render")
	}
	first := Render(src)
	cached, ok := rendered.get(key)
	if !ok || cached != first {
		t.Fatalf("not cached after the first render (%v)", ok)
	}
	if Render(src) != first {
		t.Error("the second render differs")
	}
	assertSafe(t, src, string(first))
	short := "short *text*"
	Render(short)
	if _, ok := rendered.get(keyOf(short)); ok {
		t.Error("a short source was cached")
	}
}

// The cache holds at most its bytes of HTML, dropping the least
// recently used first.
func TestCacheDropsTheLeastRecentlyUsed(t *testing.T) {
	c := newLRU(30)
	key := func(i int) [32]byte { return keyOf(fmt.Sprint(i)) }
	for i := range 3 {
		c.put(key(i), template.HTML(strings.Repeat("x", 10)))
	}
	c.get(key(0)) // 0 is now the most recent; 1 the least
	c.put(key(3), template.HTML(strings.Repeat("y", 10)))
	for i, want := range []bool{true, false, true, true} {
		if _, ok := c.get(key(i)); ok != want {
			t.Errorf("entry %d cached %v, want %v", i, ok, want)
		}
	}
	if c.size != 30 {
		t.Errorf("size %d, want 30", c.size)
	}
	c.put(key(9), template.HTML(strings.Repeat("z", 31)))
	if _, ok := c.get(key(9)); ok || c.size != 30 {
		t.Errorf("an entry over the bound was kept (size %d)", c.size)
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
				render(src)
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
