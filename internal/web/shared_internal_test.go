package web

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// A page rendered from data read before a forget is not kept after it;
// one rendered after is. The store stays within its bytes.
func TestSharedPagesKeepNothingStale(t *testing.T) {
	now := time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC)
	s := newSharedPages(func() time.Time { return now })
	gen := s.generation()
	s.forget() // a write lands while the page renders
	s.put("en /x", "en", []byte("<p>old</p>"), gen)
	if _, ok := s.get("en /x"); ok {
		t.Fatal("a page rendered before the forget was kept")
	}
	s.put("en /x", "en", []byte("<p>new</p>"), s.generation())
	if p, ok := s.get("en /x"); !ok || string(p.body) != "<p>new</p>" {
		t.Fatalf("a page rendered after the forget: %q, %v", p.body, ok)
	}

	// A page past sharedPageMaxBytes is served, not kept.
	s.put("en /huge", "en", []byte(strings.Repeat("x", sharedPageMaxBytes+1)), s.generation())
	if _, ok := s.get("en /huge"); ok {
		t.Error("a page over the per-page bound was kept")
	}
	big := []byte(strings.Repeat("x", sharedPageMaxBytes))
	for i := range sharedPagesMaxBytes/sharedPageMaxBytes + 5 {
		s.put(fmt.Sprintf("en /big%d", i), "en", big, s.generation())
	}
	if s.bytes > sharedPagesMaxBytes {
		t.Errorf("the store holds %d bytes, over its %d", s.bytes, sharedPagesMaxBytes)
	}
	now = now.Add(sharedPageTTL)
	if _, ok := s.get("en /x"); ok {
		t.Error("a page outlived its lifetime")
	}
	s.put("en /bigz", "en", big, s.generation())
	if _, ok := s.get("en /bigz"); !ok {
		t.Error("expired pages did not make room for a new one")
	}
}
