// Package lru is the app's one bounded in-memory map: what an instance
// remembers to save storage calls or CPU (read markers it wrote, rendered
// Markdown, badge counts, verdicts on repeat rules) stays within a bound
// however long the process runs, the least recently used going first.
// Entries that go stale by age carry their own time; the cache only
// bounds their number (or their cost).
package lru

import (
	"container/list"
	"sync"
)

// Cache maps keys to values, holding at most its budget: by default one
// unit an entry, or each value's Cost. Safe for concurrent use.
type Cache[K comparable, V any] struct {
	mu     sync.Mutex
	budget int
	used   int
	cost   func(V) int
	order  *list.List // front: most recently used
	items  map[K]*list.Element
}

type entry[K comparable, V any] struct {
	key  K
	val  V
	cost int
}

// New holds at most max entries.
func New[K comparable, V any](max int) *Cache[K, V] {
	return NewCosted[K](max, func(V) int { return 1 })
}

// NewCosted holds entries whose costs add up to at most budget (bytes of
// HTML, say); a value costing more than the whole budget is not kept.
func NewCosted[K comparable, V any](budget int, cost func(V) int) *Cache[K, V] {
	return &Cache[K, V]{budget: budget, cost: cost, order: list.New(), items: map[K]*list.Element{}}
}

// Get returns key's value and whether it is there, and marks it used.
func (c *Cache[K, V]) Get(key K) (V, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	el, ok := c.items[key]
	if !ok {
		var zero V
		return zero, false
	}
	c.order.MoveToFront(el)
	return el.Value.(*entry[K, V]).val, true
}

// Put sets key's value, then forgets the least recently used entries
// until the cache is within its budget.
func (c *Cache[K, V]) Put(key K, val V) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.put(key, val)
}

// GetOrPut returns key's value when it is there (true); otherwise it
// puts val and returns it (false), in one step: of two callers at once,
// one puts and the other gets what it put.
func (c *Cache[K, V]) GetOrPut(key K, val V) (V, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.items[key]; ok {
		c.order.MoveToFront(el)
		return el.Value.(*entry[K, V]).val, true
	}
	c.put(key, val)
	return val, false
}

func (c *Cache[K, V]) put(key K, val V) {
	cost := c.cost(val)
	if el, ok := c.items[key]; ok {
		c.used -= el.Value.(*entry[K, V]).cost
		c.order.Remove(el)
		delete(c.items, key)
	}
	if cost > c.budget {
		return
	}
	c.items[key] = c.order.PushFront(&entry[K, V]{key: key, val: val, cost: cost})
	c.used += cost
	for c.used > c.budget {
		last := c.order.Back()
		e := last.Value.(*entry[K, V])
		c.order.Remove(last)
		delete(c.items, e.key)
		c.used -= e.cost
	}
}

// Delete forgets key.
func (c *Cache[K, V]) Delete(key K) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.items[key]; ok {
		c.used -= el.Value.(*entry[K, V]).cost
		c.order.Remove(el)
		delete(c.items, key)
	}
}

// Len is how many entries the cache holds.
func (c *Cache[K, V]) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.items)
}
