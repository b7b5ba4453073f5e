package richtext

import (
	"container/list"
	"crypto/sha256"
	"html/template"
	"sync"
)

// Rendering costs more than its length: goldmark's emphasis and link
// scans go back over earlier delimiters, so 20,000 characters of
// unmatched "*a_" (within the forum's limit) take about 0.1 s, and a
// topic page shows 20 posts. Callers bound the source's length; the
// cache keeps a source rendered once per process while it is read.

const (
	// cacheFrom is the shortest source cached: shorter ones render in
	// microseconds.
	cacheFrom = 1 << 10
	// cacheBytes bounds the HTML the cache holds.
	cacheBytes = 16 << 20
)

var rendered = newLRU(cacheBytes)

// keyOf is a source's key in the cache.
func keyOf(src string) [32]byte { return sha256.Sum256([]byte(src)) }

// lru is a least-recently-used map of source digests to HTML, bounded by
// the bytes of HTML it holds.
type lru struct {
	mu    sync.Mutex
	max   int
	size  int
	order *list.List // front: most recently used
	items map[[32]byte]*list.Element
}

type lruEntry struct {
	key  [32]byte
	html template.HTML
}

func newLRU(max int) *lru {
	return &lru{max: max, order: list.New(), items: map[[32]byte]*list.Element{}}
}

func (c *lru) get(key [32]byte) (template.HTML, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	el, ok := c.items[key]
	if !ok {
		return "", false
	}
	c.order.MoveToFront(el)
	return el.Value.(*lruEntry).html, true
}

func (c *lru) put(key [32]byte, html template.HTML) {
	if len(html) > c.max {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.items[key]; ok {
		c.order.MoveToFront(el)
		return
	}
	c.items[key] = c.order.PushFront(&lruEntry{key: key, html: html})
	c.size += len(html)
	for c.size > c.max {
		last := c.order.Back()
		e := last.Value.(*lruEntry)
		c.order.Remove(last)
		delete(c.items, e.key)
		c.size -= len(e.html)
	}
}
