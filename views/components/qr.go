package components

import (
	"strconv"
	"strings"

	"rsc.io/qr"
)

// qrQuiet is the blank margin around a QR code, in modules, that
// scanners need.
const qrQuiet = 4

// QRCode is a QR code drawn as one SVG path: Path fills the dark modules
// of a Size × Size grid (quiet zone included). The QR component draws it
// with attributes only, no inline style, so the CSP holds.
type QRCode struct {
	Path string
	Size int
}

// EncodeQR encodes text (a link) as a QR code with medium error
// correction.
func EncodeQR(text string) (QRCode, error) {
	code, err := qr.Encode(text, qr.M)
	if err != nil {
		return QRCode{}, err
	}
	var b strings.Builder
	for y := 0; y < code.Size; y++ {
		for x := 0; x < code.Size; x++ {
			if !code.Black(x, y) {
				continue
			}
			// A run of dark modules on a row is one rectangle.
			run := 1
			for x+run < code.Size && code.Black(x+run, y) {
				run++
			}
			b.WriteString("M")
			b.WriteString(strconv.Itoa(x + qrQuiet))
			b.WriteString(" ")
			b.WriteString(strconv.Itoa(y + qrQuiet))
			b.WriteString("h")
			b.WriteString(strconv.Itoa(run))
			b.WriteString("v1h-")
			b.WriteString(strconv.Itoa(run))
			b.WriteString("z")
			x += run - 1
		}
	}
	return QRCode{Path: b.String(), Size: code.Size + 2*qrQuiet}, nil
}
