// Package mediatest makes test images for the upload pipeline: pictures
// with EXIF blocks that must not survive, and headers that lie about their
// size.
package mediatest

import (
	"bytes"
	"crypto/rand"
	"encoding/binary"
	"hash/crc32"
	"image"
	"image/color"
	"image/jpeg"
	"image/png"
	"testing"
)

// GPSSecret is text planted in JPEGWithEXIF's EXIF block; it must not
// survive processing.
const GPSSecret = "GPS-SECRET-55.7558N-37.6173E"

// Image is a w×h picture with a different colour in each corner, so a
// rotation shows.
func Image(w, h int) *image.NRGBA {
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			img.Set(x, y, color.NRGBA{R: uint8(255 * x / w), G: uint8(255 * y / h), B: 128, A: 255})
		}
	}
	return img
}

// EncodePNG encodes img as PNG.
func EncodePNG(t testing.TB, img image.Image) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// EncodedPNG is a w×h PNG of Image.
func EncodedPNG(t testing.TB, w, h int) []byte { return EncodePNG(t, Image(w, h)) }

// NoisyPNG is a w×h PNG of random pixels, which does not compress: about
// 4·w·h bytes.
func NoisyPNG(t testing.TB, w, h int) []byte {
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	rand.Read(img.Pix)
	return EncodePNG(t, img)
}

// JPEGWithEXIF is a w×h JPEG carrying an EXIF block with the orientation
// tag, an image description holding GPSSecret and a GPS IFD.
func JPEGWithEXIF(t testing.TB, w, h int, orientation uint16) []byte {
	t.Helper()
	var plain bytes.Buffer
	if err := jpeg.Encode(&plain, Image(w, h), &jpeg.Options{Quality: 90}); err != nil {
		t.Fatal(err)
	}
	be := binary.BigEndian
	// TIFF header, then IFD0 at 8 with 3 entries, then the GPS IFD, then
	// the description's text.
	tiff := []byte("MM\x00\x2a\x00\x00\x00\x08")
	const ifd0Entries = 3
	gpsIFD := 8 + 2 + 12*ifd0Entries + 4
	const gpsEntries = 1
	textAt := gpsIFD + 2 + 12*gpsEntries + 4
	entry := func(tag, typ uint16, count, value uint32) []byte {
		b := make([]byte, 12)
		be.PutUint16(b, tag)
		be.PutUint16(b[2:], typ)
		be.PutUint32(b[4:], count)
		be.PutUint32(b[8:], value)
		return b
	}
	tiff = be.AppendUint16(tiff, ifd0Entries)
	tiff = append(tiff, entry(0x010E, 2, uint32(len(GPSSecret)+1), uint32(textAt))...) // ImageDescription
	tiff = append(tiff, entry(0x0112, 3, 1, uint32(orientation)<<16)...)               // Orientation (SHORT, left-justified)
	tiff = append(tiff, entry(0x8825, 4, 1, uint32(gpsIFD))...)                        // GPS IFD pointer
	tiff = be.AppendUint32(tiff, 0)
	tiff = be.AppendUint16(tiff, gpsEntries)
	tiff = append(tiff, entry(0x0001, 2, 2, 'N'<<24)...) // GPSLatitudeRef "N"
	tiff = be.AppendUint32(tiff, 0)
	tiff = append(tiff, GPSSecret...)
	tiff = append(tiff, 0)

	app1 := append([]byte("Exif\x00\x00"), tiff...)
	seg := []byte{0xFF, 0xE1}
	seg = be.AppendUint16(seg, uint16(len(app1)+2))
	seg = append(seg, app1...)
	data := plain.Bytes()
	out := append([]byte{}, data[:2]...) // SOI
	out = append(out, seg...)
	return append(out, data[2:]...)
}

// PNGHeader is a PNG whose header claims w×h pixels but whose pixel data
// is garbage: decoding it would fail, so only a header check can refuse it
// for its size.
func PNGHeader(w, h uint32) []byte {
	be := binary.BigEndian
	chunk := func(kind string, data []byte) []byte {
		b := be.AppendUint32(nil, uint32(len(data)))
		b = append(b, kind...)
		b = append(b, data...)
		return be.AppendUint32(b, crc32.ChecksumIEEE(append([]byte(kind), data...)))
	}
	ihdr := be.AppendUint32(nil, w)
	ihdr = be.AppendUint32(ihdr, h)
	ihdr = append(ihdr, 8, 2, 0, 0, 0) // 8-bit RGB
	out := []byte("\x89PNG\r\n\x1a\n")
	out = append(out, chunk("IHDR", ihdr)...)
	out = append(out, chunk("IDAT", []byte("not deflate data"))...)
	return append(out, chunk("IEND", nil)...)
}

// DeepPNG is a w×h PNG of 16-bit RGB in one colour. It compresses to
// almost nothing (a 6320×6320 one is about 300 KB) but decodes to 8 bytes
// a pixel.
func DeepPNG(t testing.TB, w, h int) []byte {
	return FlatPNG(t, w, h, color.RGBA64{0x1234, 0x5678, 0x9abc, 0xffff})
}

// FlatPNG is a w×h PNG in colour c, whose type picks the PNG's: 16-bit
// RGB for color.RGBA64, RGBA for a translucent color.NRGBA, RGB for
// color.RGBA, grey for color.Gray. Making it takes no memory, however
// large.
func FlatPNG(t testing.TB, w, h int, c color.Color) []byte {
	t.Helper()
	var buf bytes.Buffer
	enc := png.Encoder{CompressionLevel: png.BestSpeed}
	if err := enc.Encode(&buf, flat{image.Rect(0, 0, w, h), c}); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// FlatJPEG is a w×h baseline 4:2:0 JPEG in colour c.
func FlatJPEG(t testing.TB, w, h int, c color.Color) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := jpeg.Encode(&buf, flat{image.Rect(0, 0, w, h), c}, &jpeg.Options{Quality: 85}); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// flat is a picture in one colour that takes no memory.
type flat struct {
	rect image.Rectangle
	c    color.Color
}

func (f flat) ColorModel() color.Model {
	switch f.c.(type) {
	case color.RGBA64:
		return color.RGBA64Model
	case color.NRGBA:
		return color.NRGBAModel
	case color.Gray:
		return color.GrayModel
	}
	return color.RGBAModel
}

func (f flat) Bounds() image.Rectangle { return f.rect }
func (f flat) At(int, int) color.Color { return f.c }

func (f flat) Opaque() bool {
	_, _, _, a := f.c.RGBA()
	return a == 0xffff
}
