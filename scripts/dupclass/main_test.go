package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Each pair is sorted by what its two sides hold: both in import blocks,
// both in other declarations, or any code.
func TestClassify(t *testing.T) {
	dir := t.TempDir()
	src := `package p

import (
	"errors"
	"fmt"
)

type Row struct {
	A string
	B string
}

var errX = errors.New("x")

func f() error {
	// a comment
	return fmt.Errorf("f: %w", errX)
}
`
	if err := os.WriteFile(filepath.Join(dir, "p.go"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	rows := strings.Join([]string{
		"3 pairs of places",
		"D1 p.go:3-6 ~ p.go:3-6",
		"D2 p.go:8-11 ~ p.go:13-13 shape",
		"D3 p.go:11-17 ~ p.go:8-10 shape",
		"D4 other.css:1-9 ~ p.go:8-10",
	}, "\n")
	var out strings.Builder
	counts, err := classify(strings.NewReader(rows), &out, dir)
	if err != nil {
		t.Fatal(err)
	}
	if counts["imports"] != 1 || counts["declarations"] != 1 || counts["code"] != 2 {
		t.Errorf("counts %v, want 1 imports, 1 declarations, 2 code", counts)
	}
	for _, want := range []string{"imports      D1 ", "declarations D2 ", "code         D3 ", "code         D4 ", "3 pairs of places"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
}
