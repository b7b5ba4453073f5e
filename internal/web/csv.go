package web

import (
	"bytes"
	"encoding/csv"
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"
)

// CSV answers with rows as a CSV download named filename (ASCII), for a
// spreadsheet: UTF-8 with a byte-order mark, so Excel reads Cyrillic
// names right, and every cell that a spreadsheet would run as a formula
// (starting with = + - @, a tab or a carriage return) prefixed with an
// apostrophe, so a name cannot become a formula on the organizer's
// machine.
func CSV(c echo.Context, filename string, rows [][]string) error {
	var b bytes.Buffer
	b.WriteString("\ufeff")
	w := csv.NewWriter(&b)
	for _, r := range rows {
		safe := make([]string, len(r))
		for i, cell := range r {
			safe[i] = CSVCell(cell)
		}
		if err := w.Write(safe); err != nil {
			return err
		}
	}
	w.Flush()
	if err := w.Error(); err != nil {
		return err
	}
	h := c.Response().Header()
	h.Set("Content-Disposition", `attachment; filename="`+filename+`"`)
	h.Set("Cache-Control", "private, no-store")
	return c.Blob(http.StatusOK, "text/csv; charset=utf-8", b.Bytes())
}

// CSVCell is cell made safe to open in a spreadsheet (see CSV).
func CSVCell(cell string) string {
	if cell != "" && strings.ContainsRune("=+-@\t\r", rune(cell[0])) {
		return "'" + cell
	}
	return cell
}
