package account

import (
	"bytes"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"image"
	"image/color"
	"image/jpeg"
	"image/png"
	"os"
	"testing"
)

// testImage is a w×h picture with a different colour in each corner, so a
// rotation shows.
func testImage(w, h int) *image.NRGBA {
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			img.Set(x, y, color.NRGBA{R: uint8(255 * x / w), G: uint8(255 * y / h), B: 128, A: 255})
		}
	}
	return img
}

func encodePNG(t testing.TB, img image.Image) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// gpsSecret is text planted in the EXIF block; it must not survive.
const gpsSecret = "GPS-SECRET-55.7558N-37.6173E"

// jpegWithEXIF is a w×h JPEG carrying an EXIF block with the orientation
// tag, an image description holding gpsSecret and a GPS IFD.
func jpegWithEXIF(t testing.TB, w, h int, orientation uint16) []byte {
	t.Helper()
	var plain bytes.Buffer
	if err := jpeg.Encode(&plain, testImage(w, h), &jpeg.Options{Quality: 90}); err != nil {
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
	tiff = append(tiff, entry(0x010E, 2, uint32(len(gpsSecret)+1), uint32(textAt))...) // ImageDescription
	tiff = append(tiff, entry(0x0112, 3, 1, uint32(orientation)<<16)...)               // Orientation (SHORT, left-justified)
	tiff = append(tiff, entry(0x8825, 4, 1, uint32(gpsIFD))...)                        // GPS IFD pointer
	tiff = be.AppendUint32(tiff, 0)
	tiff = be.AppendUint16(tiff, gpsEntries)
	tiff = append(tiff, entry(0x0001, 2, 2, 'N'<<24)...) // GPSLatitudeRef "N"
	tiff = be.AppendUint32(tiff, 0)
	tiff = append(tiff, gpsSecret...)
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

// pngHeader is a PNG whose header claims w×h pixels but whose pixel data
// is garbage: decoding it would fail, so only a header check can refuse it
// for its size.
func pngHeader(w, h uint32) []byte {
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

func decodeJPEG(t testing.TB, b []byte) image.Image {
	t.Helper()
	if sniffPhoto(b) != formatJPEG {
		t.Fatalf("output is not a JPEG")
	}
	img, err := jpeg.Decode(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	return img
}

func TestProcessPhotoStripsEXIF(t *testing.T) {
	in := jpegWithEXIF(t, 800, 600, 1)
	if !bytes.Contains(in, []byte(gpsSecret)) || jpegOrientation(in) != 1 {
		t.Fatal("fixture lacks its EXIF block")
	}
	out, err := processPhoto(in)
	if err != nil {
		t.Fatal(err)
	}
	for name, b := range map[string][]byte{"large": out.Large, "small": out.Small} {
		if bytes.Contains(b, []byte("Exif")) || bytes.Contains(b, []byte(gpsSecret)) || bytes.Contains(b, []byte{0xFF, 0xE1}) {
			t.Errorf("%s copy still carries EXIF", name)
		}
	}
	large, small := decodeJPEG(t, out.Large).Bounds(), decodeJPEG(t, out.Small).Bounds()
	if large.Dx() != 512 || large.Dy() != 384 {
		t.Errorf("large is %v, want 512×384 (aspect kept)", large.Size())
	}
	if small.Dx() != 128 || small.Dy() != 96 {
		t.Errorf("small is %v, want 128×96", small.Size())
	}
}

func TestProcessPhotoAppliesOrientation(t *testing.T) {
	// Orientation 6: stored landscape, meant to be seen turned clockwise.
	in := jpegWithEXIF(t, 400, 200, 6)
	if got := jpegOrientation(in); got != 6 {
		t.Fatalf("orientation read as %d", got)
	}
	out, err := processPhoto(in)
	if err != nil {
		t.Fatal(err)
	}
	b := decodeJPEG(t, out.Large).Bounds()
	if b.Dx() != 200 || b.Dy() != 400 {
		t.Errorf("large is %v, want 200×400 (turned upright)", b.Size())
	}
}

func TestOrientMapsCorners(t *testing.T) {
	src := image.NewRGBA(image.Rect(0, 0, 3, 2))
	// Top-left red, top-right green, bottom-left blue.
	red, green, blue := color.RGBA{255, 0, 0, 255}, color.RGBA{0, 255, 0, 255}, color.RGBA{0, 0, 255, 255}
	src.SetRGBA(0, 0, red)
	src.SetRGBA(2, 0, green)
	src.SetRGBA(0, 1, blue)
	cases := []struct {
		o          int
		w, h       int
		at         image.Point
		want       color.RGBA
		whatIsThis string
	}{
		{2, 3, 2, image.Pt(2, 0), red, "mirror: top-left goes top-right"},
		{3, 3, 2, image.Pt(2, 1), red, "180°: top-left goes bottom-right"},
		{4, 3, 2, image.Pt(0, 1), red, "flip: top-left goes bottom-left"},
		{6, 2, 3, image.Pt(1, 0), red, "clockwise: top-left goes top-right"},
		{6, 2, 3, image.Pt(0, 0), blue, "clockwise: bottom-left goes top-left"},
		{8, 2, 3, image.Pt(0, 2), red, "anticlockwise: top-left goes bottom-left"},
		{8, 2, 3, image.Pt(0, 0), green, "anticlockwise: top-right goes top-left"},
		{5, 2, 3, image.Pt(0, 0), red, "transpose keeps top-left"},
		{7, 2, 3, image.Pt(1, 2), red, "transverse: top-left goes bottom-right"},
	}
	for _, tc := range cases {
		got := orient(src, tc.o)
		if got.Bounds().Dx() != tc.w || got.Bounds().Dy() != tc.h {
			t.Errorf("orientation %d: size %v", tc.o, got.Bounds().Size())
			continue
		}
		if c := got.RGBAAt(tc.at.X, tc.at.Y); c != tc.want {
			t.Errorf("orientation %d (%s): %v at %v", tc.o, tc.whatIsThis, c, tc.at)
		}
	}
}

func TestProcessPhotoFormats(t *testing.T) {
	webpData, err := os.ReadFile("testdata/photo.webp")
	if err != nil {
		t.Fatal(err)
	}
	transparent := image.NewNRGBA(image.Rect(0, 0, 40, 30)) // all transparent: comes out white
	cases := []struct {
		name string
		data []byte
		want error
	}{
		{"png", encodePNG(t, testImage(300, 200)), nil},
		{"png with alpha", encodePNG(t, transparent), nil},
		{"webp", webpData, nil},
		{"small jpeg is not upscaled", jpegWithEXIF(t, 60, 40, 1), nil},
		{"text", []byte("hello, I am not a picture at all"), ErrPhotoType},
		{"gif", []byte("GIF89a\x01\x00\x01\x00\x00\x00\x00;"), ErrPhotoType},
		{"empty", nil, ErrPhotoType},
		{"truncated jpeg", jpegWithEXIF(t, 64, 64, 1)[:300], ErrPhotoDamaged},
		{"41 megapixels", pngHeader(8000, 5125), ErrPhotoPixels},
		{"over 10 MB", append(encodePNG(t, testImage(4, 4)), make([]byte, MaxPhotoBytes)...), ErrPhotoTooLarge},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			out, err := processPhoto(tc.data)
			if !errors.Is(err, tc.want) {
				t.Fatalf("error %v, want %v", err, tc.want)
			}
			if tc.want != nil {
				return
			}
			img := decodeJPEG(t, out.Large)
			if tc.name == "png with alpha" {
				if r, g, b, _ := img.At(5, 5).RGBA(); r>>8 < 250 || g>>8 < 250 || b>>8 < 250 {
					t.Errorf("transparency became %d,%d,%d, want white", r>>8, g>>8, b>>8)
				}
			}
			if tc.name == "small jpeg is not upscaled" && img.Bounds().Dx() != 60 {
				t.Errorf("width %d, want 60", img.Bounds().Dx())
			}
		})
	}
}

// The 40-megapixel limit is checked from the header: a photo just under it
// is decoded, one just over is refused before decoding.
func TestPixelLimitIsCheckedBeforeDecoding(t *testing.T) {
	_, err := processPhoto(pngHeader(8000, 5000)) // exactly 40 MP: decoded, and the garbage data fails
	if !errors.Is(err, ErrPhotoDamaged) {
		t.Fatalf("40 MP header: %v, want a decode failure", err)
	}
	_, err = processPhoto(pngHeader(8000, 5001))
	if !errors.Is(err, ErrPhotoPixels) {
		t.Fatalf("40 MP + 8000 px: %v, want ErrPhotoPixels", err)
	}
}

func TestJPEGOrientationIgnoresJunk(t *testing.T) {
	for _, b := range [][]byte{nil, {0xFF}, {0xFF, 0xD8}, {0xFF, 0xD8, 0xFF, 0xE1, 0xFF, 0xFF}, []byte("\xFF\xD8\xFF\xE1\x00\x10Exif\x00\x00MM\x00\x2a\xFF\xFF\xFF\xFF")} {
		if o := jpegOrientation(b); o != 1 {
			t.Errorf("%q: orientation %d", b, o)
		}
	}
}
