package lru

import (
	"fmt"
	"sync"
	"testing"
)

// A full cache forgets the least recently used entry; reading one marks
// it used; a value put again replaces the old one.
func TestForgetsTheLeastRecentlyUsed(t *testing.T) {
	t.Parallel()
	c := New[string, int](2)
	c.Put("a", 1)
	c.Put("b", 2)
	if v, ok := c.Get("a"); !ok || v != 1 {
		t.Fatalf("a: %d %v", v, ok)
	}
	c.Put("c", 3) // b is the least recently used
	if _, ok := c.Get("b"); ok {
		t.Error("b was kept past the bound")
	}
	for k, want := range map[string]int{"a": 1, "c": 3} {
		if v, ok := c.Get(k); !ok || v != want {
			t.Errorf("%s: %d %v, want %d", k, v, ok, want)
		}
	}
	c.Put("a", 10)
	if v, _ := c.Get("a"); v != 10 || c.Len() != 2 {
		t.Errorf("a put again: %d, %d entries", v, c.Len())
	}
	c.Delete("a")
	c.Delete("nothing")
	if _, ok := c.Get("a"); ok || c.Len() != 1 {
		t.Errorf("after delete: %d entries", c.Len())
	}
}

// A costed cache holds what its budget allows and refuses a value that
// costs more than all of it.
func TestCostedCacheKeepsWithinItsBudget(t *testing.T) {
	t.Parallel()
	c := NewCosted[string](10, func(s string) int { return len(s) })
	c.Put("a", "12345")
	c.Put("b", "1234")
	c.Put("c", "12") // 11 > 10: a goes
	if _, ok := c.Get("a"); ok {
		t.Error("a kept past the budget")
	}
	c.Put("huge", "12345678901")
	if _, ok := c.Get("huge"); ok || c.Len() != 2 {
		t.Errorf("a value over the whole budget was kept, or pushed others out: %d entries", c.Len())
	}
}

// GetOrPut puts once: of many callers at once, one puts, the others get
// its value; the bound holds under concurrent use.
func TestGetOrPutOnceAndBoundUnderLoad(t *testing.T) {
	t.Parallel()
	c := New[string, int](100)
	var wg sync.WaitGroup
	got := make([]int, 50)
	had := make([]bool, 50)
	start := make(chan struct{})
	for i := range 50 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			got[i], had[i] = c.GetOrPut("k", i)
		}()
	}
	close(start)
	wg.Wait()
	put := 0
	for i := range 50 {
		if !had[i] {
			put++
		}
		if got[i] != got[0] {
			t.Fatalf("callers got %d and %d", got[0], got[i])
		}
	}
	if put != 1 {
		t.Errorf("%d callers put, want 1", put)
	}
	for i := range 20 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range 100 {
				c.Put(fmt.Sprint(i, "-", j), j)
				c.Get(fmt.Sprint(i, "-", j/2))
			}
		}()
	}
	wg.Wait()
	if n := c.Len(); n != 100 {
		t.Errorf("%d entries after 2,000 puts, bound 100", n)
	}
}
