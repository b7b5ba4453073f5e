// Command dupclass sorts the pairs of the duplicates tool by what they
// repeat, reading its rows on standard input (scripts/duplicates): a
// pair whose two sides both lie in Go import blocks is "imports"; in
// other declarations (a struct's fields, a block of errors or
// constants, a table of data) "declarations"; any other pair is "code",
// the logic that issue 10 asks to write once.
//
// Usage: dupclass -root DIR < rows
package main

import (
	"bufio"
	"flag"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
)

// side is one place of a pair: a file's lines from to to.
type side struct {
	file     string
	from, to int
}

var rowPattern = regexp.MustCompile(`^D\d+ (\S+):(\d+)-(\d+) ~ (\S+):(\d+)-(\d+)`)

func main() {
	root := flag.String("root", ".", "the tree the rows name files in")
	flag.Parse()
	counts, err := classify(os.Stdin, os.Stdout, *root)
	if err != nil {
		fmt.Fprintln(os.Stderr, "dupclass:", err)
		os.Exit(1)
	}
	fmt.Printf("\n%d pairs: %d code, %d declarations, %d imports\n",
		counts["code"]+counts["declarations"]+counts["imports"],
		counts["code"], counts["declarations"], counts["imports"])
}

// classify copies the rows from r to w, each with its class in front,
// and counts the classes.
func classify(r io.Reader, w io.Writer, root string) (map[string]int, error) {
	counts := map[string]int{}
	files := map[string]*declLines{}
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		line := sc.Text()
		m := rowPattern.FindStringSubmatch(line)
		if m == nil {
			fmt.Fprintln(w, line)
			continue
		}
		a, b := parseSide(m[1:4]), parseSide(m[4:7])
		ka, err := kind(files, root, a)
		if err != nil {
			return nil, err
		}
		kb, err := kind(files, root, b)
		if err != nil {
			return nil, err
		}
		class := "code"
		switch {
		case ka == "imports" && kb == "imports":
			class = "imports"
		case ka != "code" && kb != "code":
			class = "declarations"
		}
		counts[class]++
		fmt.Fprintf(w, "%-12s %s\n", class, line)
	}
	return counts, sc.Err()
}

func parseSide(m []string) side {
	from, _ := strconv.Atoi(m[1])
	to, _ := strconv.Atoi(m[2])
	return side{file: m[0], from: from, to: to}
}

// declLines says, for each line of a Go file, what declaration holds
// it: "imports", "declarations", or "" for code.
type declLines map[int]string

// kind is "imports" or "declarations" when every line of s that is not
// blank or a comment lies in such a declaration, else "code".
func kind(files map[string]*declLines, root string, s side) (string, error) {
	if !strings.HasSuffix(s.file, ".go") {
		return "code", nil
	}
	lines, ok := files[s.file]
	if !ok {
		l, err := parseDecls(filepath.Join(root, s.file))
		if err != nil {
			return "", err
		}
		lines, files[s.file] = l, l
	}
	src, err := os.ReadFile(filepath.Join(root, s.file))
	if err != nil {
		return "", err
	}
	text := strings.Split(string(src), "\n")
	seen := map[string]bool{}
	for n := s.from; n <= s.to && n <= len(text); n++ {
		t := strings.TrimSpace(text[n-1])
		if t == "" || strings.HasPrefix(t, "//") {
			continue
		}
		seen[(*lines)[n]] = true
	}
	switch {
	case seen[""]:
		return "code", nil
	case seen["declarations"]:
		return "declarations", nil
	default:
		return "imports", nil
	}
}

// parseDecls marks the lines of path's top-level declarations other
// than functions.
func parseDecls(path string) (*declLines, error) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
	if err != nil {
		return nil, err
	}
	lines := declLines{}
	for _, d := range f.Decls {
		g, ok := d.(*ast.GenDecl)
		if !ok {
			continue
		}
		what := "declarations"
		if g.Tok == token.IMPORT {
			what = "imports"
		}
		for n := fset.Position(g.Pos()).Line; n <= fset.Position(g.End()).Line; n++ {
			lines[n] = what
		}
	}
	return &lines, nil
}
