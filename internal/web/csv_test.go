package web

import "testing"

// TestCSVCellDisarmsFormulas: a cell a spreadsheet would run as a
// formula is prefixed with an apostrophe; anything else is as given.
func TestCSVCellDisarmsFormulas(t *testing.T) {
	for in, want := range map[string]string{
		"=HYPERLINK(\"x\")": "'=HYPERLINK(\"x\")",
		"+1":                "'+1",
		"-2":                "'-2",
		"@SUM(A1)":          "'@SUM(A1)",
		"\tx":               "'\tx",
		"Анна":              "Анна",
		"a=b":               "a=b",
		"":                  "",
	} {
		if got := CSVCell(in); got != want {
			t.Errorf("CSVCell(%q) = %q, want %q", in, got, want)
		}
	}
}
