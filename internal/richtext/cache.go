package richtext

import (
	"crypto/sha256"
	"html/template"

	"github.com/harmony/harmony/internal/lru"
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

// rendered maps source digests to their HTML, bounded by the bytes of
// HTML it holds.
var rendered = lru.NewCosted[[32]byte](cacheBytes, func(h template.HTML) int { return len(h) })

// keyOf is a source's key in the cache, for the renderer salt names.
func keyOf(salt, src string) [32]byte { return sha256.Sum256([]byte(salt + "\x00" + src)) }
