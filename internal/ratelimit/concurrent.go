package ratelimit

import "sync"

// Concurrent bounds how many of something one key (a person) holds at
// once, such as open event streams, in memory. Like PerIP, each instance
// keeps its own count. A key holding nothing takes no memory.
type Concurrent struct {
	max int

	mu   sync.Mutex
	held map[string]int
}

// NewConcurrent allows max held at once per key.
func NewConcurrent(max int) *Concurrent {
	return &Concurrent{max: max, held: map[string]int{}}
}

// Acquire takes one for key, reporting whether one was free; each taken
// one goes back through Release.
func (c *Concurrent) Acquire(key string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.held[key] >= c.max {
		return false
	}
	c.held[key]++
	return true
}

// Release gives back one that key took.
func (c *Concurrent) Release(key string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.held[key] <= 1 {
		delete(c.held, key)
		return
	}
	c.held[key]--
}
