package media

import (
	"bytes"
	"context"
	"errors"
	"image"
	"image/color"
	"image/jpeg"
	"os"
	"testing"
	"time"

	"github.com/harmony/harmony/internal/media/mediatest"
)

// photoSizes are the profile photo's two sizes, as the account module asks.
var photoSizes = Options{Sizes: []int{512, 128}}

// processPhoto runs the pipeline as a profile photo upload does.
func processPhoto(data []byte) (Result, error) {
	return Process(context.Background(), bytes.NewReader(data), photoSizes)
}

var (
	jpegWithEXIF = mediatest.JPEGWithEXIF
	pngHeader    = mediatest.PNGHeader
	encodePNG    = mediatest.EncodePNG
	testImage    = mediatest.Image
)

const gpsSecret = mediatest.GPSSecret

func decodeJPEG(t testing.TB, b []byte) image.Image {
	t.Helper()
	if Sniff(b) != FormatJPEG {
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
	for name, b := range map[string][]byte{"large": out.Variants[512], "small": out.Variants[128]} {
		if bytes.Contains(b, []byte("Exif")) || bytes.Contains(b, []byte(gpsSecret)) || bytes.Contains(b, []byte{0xFF, 0xE1}) {
			t.Errorf("%s copy still carries EXIF", name)
		}
	}
	large, small := decodeJPEG(t, out.Variants[512]).Bounds(), decodeJPEG(t, out.Variants[128]).Bounds()
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
	b := decodeJPEG(t, out.Variants[512]).Bounds()
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
		{"text", []byte("hello, I am not a picture at all"), ErrUnsupported},
		{"gif", []byte("GIF89a\x01\x00\x01\x00\x00\x00\x00;"), ErrUnsupported},
		{"empty", nil, ErrUnsupported},
		{"truncated jpeg", jpegWithEXIF(t, 64, 64, 1)[:300], ErrDamaged},
		{"41 megapixels", pngHeader(8000, 5125), ErrTooManyPixels},
		{"over 10 MB", append(encodePNG(t, testImage(4, 4)), make([]byte, DefaultMaxBytes)...), ErrTooLarge},
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
			img := decodeJPEG(t, out.Variants[512])
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
	if !errors.Is(err, ErrDamaged) {
		t.Fatalf("40 MP header: %v, want a decode failure", err)
	}
	_, err = processPhoto(pngHeader(8000, 5001))
	if !errors.Is(err, ErrTooManyPixels) {
		t.Fatalf("40 MP + 8000 px: %v, want ErrTooManyPixels", err)
	}
}

func TestJPEGOrientationIgnoresJunk(t *testing.T) {
	for _, b := range [][]byte{nil, {0xFF}, {0xFF, 0xD8}, {0xFF, 0xD8, 0xFF, 0xE1, 0xFF, 0xFF}, []byte("\xFF\xD8\xFF\xE1\x00\x10Exif\x00\x00MM\x00\x2a\xFF\xFF\xFF\xFF")} {
		if o := jpegOrientation(b); o != 1 {
			t.Errorf("%q: orientation %d", b, o)
		}
	}
}

func TestProcessReportsUprightSizeAndMakesEverySize(t *testing.T) {
	out, err := Process(context.Background(), bytes.NewReader(jpegWithEXIF(t, 400, 200, 6)), Options{Sizes: []int{64, 1000, 300}})
	if err != nil {
		t.Fatal(err)
	}
	if out.Width != 200 || out.Height != 400 {
		t.Errorf("size %d×%d, want 200×400 (upright)", out.Width, out.Height)
	}
	want := map[int]image.Point{64: {32, 64}, 300: {150, 300}, 1000: {200, 400}}
	if len(out.Variants) != len(want) {
		t.Fatalf("%d variants", len(out.Variants))
	}
	for side, size := range want {
		if got := decodeJPEG(t, out.Variants[side]).Bounds().Size(); got != size {
			t.Errorf("size %d: %v, want %v", side, got, size)
		}
	}
}

func TestProcessHonoursCustomLimits(t *testing.T) {
	png := encodePNG(t, testImage(100, 100))
	cases := []struct {
		name string
		opts Options
		want error
	}{
		{"bytes", Options{MaxBytes: len(png) - 1, Sizes: []int{10}}, ErrTooLarge},
		{"bytes at the limit", Options{MaxBytes: len(png), Sizes: []int{10}}, nil},
		{"pixels", Options{MaxPixels: 9_999, Sizes: []int{10}}, ErrTooManyPixels},
		{"pixels at the limit", Options{MaxPixels: 10_000, Sizes: []int{10}}, nil},
	}
	for _, tc := range cases {
		if _, err := Process(context.Background(), bytes.NewReader(png), tc.opts); !errors.Is(err, tc.want) {
			t.Errorf("%s: %v, want %v", tc.name, err, tc.want)
		}
	}
	if _, err := Process(context.Background(), bytes.NewReader(png), Options{}); err == nil {
		t.Error("no sizes accepted")
	}
}

// A reader longer than the limit is not read to its end.
func TestProcessStopsReadingPastTheLimit(t *testing.T) {
	endless := &countingReader{}
	_, err := Process(context.Background(), endless, Options{MaxBytes: 1 << 10, Sizes: []int{10}})
	if !errors.Is(err, ErrTooLarge) {
		t.Fatalf("%v, want ErrTooLarge", err)
	}
	if endless.n > 1<<10+1 {
		t.Errorf("read %d bytes", endless.n)
	}
}

type countingReader struct{ n int }

func (r *countingReader) Read(p []byte) (int, error) {
	r.n += len(p)
	return len(p), nil
}

// Process calls share MemoryBudget across the process: one that does not
// fit waits for memory until its context ends, while one that fits in
// what is left runs at once, and one over the whole budget is refused
// without waiting.
func TestProcessWaitsForMemory(t *testing.T) {
	small, deep := encodePNG(t, testImage(8, 8)), mediatest.DeepPNG(t, 6320, 6320)
	j, err := plan(small, Options{MaxPixels: DefaultMaxPixels, Sizes: photoSizes.Sizes})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	held := MemoryBudget - j.memory
	if err := memoryInUse.Acquire(ctx, held); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { memoryInUse.Release(held) })
	if _, err := processPhoto(small); err != nil {
		t.Fatalf("an image that fits in what is left: %v", err)
	}
	memoryInUse.Acquire(ctx, j.memory) // now all of it is taken
	held += j.memory

	timeout, cancel := context.WithTimeout(ctx, 30*time.Millisecond)
	defer cancel()
	if _, err := Process(timeout, bytes.NewReader(small), photoSizes); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("%v, want the deadline", err)
	}
	if _, err := Process(timeout, bytes.NewReader(deep), photoSizes); !errors.Is(err, ErrTooMuchMemory) {
		t.Errorf("%v, want ErrTooMuchMemory", err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := processPhoto(small)
		done <- err
	}()
	select {
	case err := <-done:
		t.Fatalf("processed without free memory: %v", err)
	case <-time.After(20 * time.Millisecond):
	}
	memoryInUse.Release(j.memory)
	held -= j.memory
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}
