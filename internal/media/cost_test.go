package media

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"image"
	"image/color"
	"image/jpeg"
	"os"
	"runtime"
	"testing"

	xdraw "golang.org/x/image/draw"

	"github.com/harmony/harmony/internal/media/mediatest"
)

// The picture of the security review: 303 KB on disk, under 40
// megapixels, 320 MB decoded. It is refused from its header, before a
// pixel is decoded.
func TestDeepPNGIsRefusedBeforeDecoding(t *testing.T) {
	deep := mediatest.DeepPNG(t, 6320, 6320)
	for _, sizes := range [][]int{{512, 128}, {1600}} {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		_, err := Process(context.Background(), bytes.NewReader(deep), Options{Sizes: sizes})
		runtime.ReadMemStats(&after)
		if !errors.Is(err, ErrTooMuchMemory) {
			t.Fatalf("sizes %v: %v, want ErrTooMuchMemory", sizes, err)
		}
		if n := after.TotalAlloc - before.TotalAlloc; n > 4<<20 {
			t.Errorf("sizes %v: allocated %d MB to refuse it", sizes, n>>20)
		}
	}
}

// What each decoder returns, in tenths of a byte a pixel.
func TestDecodedBytesPerPixel(t *testing.T) {
	webp, err := os.ReadFile("testdata/photo.webp")
	if err != nil {
		t.Fatal(err)
	}
	grey := mediatest.FlatPNG(t, 16, 16, color.Gray{0x80})
	baseline := mediatest.FlatJPEG(t, 16, 16, color.RGBA{0x12, 0x34, 0x56, 0xff})
	cases := []struct {
		name   string
		data   []byte
		tenths int64
	}{
		{"png 16-bit RGB", mediatest.DeepPNG(t, 16, 16), 80},
		{"png 16-bit RGB interlaced", pngInterlaced(t, mediatest.DeepPNG(t, 16, 16)), 160},
		{"png RGBA", mediatest.FlatPNG(t, 16, 16, color.NRGBA{1, 2, 3, 128}), 40},
		{"png RGB", mediatest.FlatPNG(t, 16, 16, color.RGBA{1, 2, 3, 255}), 40},
		{"png grey", grey, 10},
		{"png grey with a transparent colour", pngWithTRNS(t, grey), 40},
		{"png 16-bit grey", encodePNG(t, image.NewGray16(image.Rect(0, 0, 16, 16))), 20},
		{"png paletted", encodePNG(t, image.NewPaletted(image.Rect(0, 0, 16, 16), color.Palette{color.Black, color.White})), 10},
		{"jpeg 4:2:0", baseline, 15},
		{"jpeg 4:2:0 progressive", jpegProgressive(t, baseline), 75},
		{"jpeg grey", jpegOf(t, image.NewGray(image.Rect(0, 0, 16, 16))), 10},
		{"webp extended", webp, 80},
		{"webp lossy", []byte("RIFF\x00\x00\x00\x00WEBPVP8 "), 15},
	}
	const side = 4096
	for _, tc := range cases {
		cfg := image.Config{Width: side, Height: side}
		got := decodedBytes(Sniff(tc.data), cfg, tc.data) * 10 / (side * side)
		if got != tc.tenths {
			t.Errorf("%s: %d tenths of a byte a pixel, want %d", tc.name, got, tc.tenths)
		}
	}
}

// decodedBytes, with decoderOverhead, bounds what the decoders allocate,
// and peakMemory all that Process allocates (more than it holds at once).
func TestEstimatesCoverWhatIsAllocated(t *testing.T) {
	webp, err := os.ReadFile("testdata/photo.webp")
	if err != nil {
		t.Fatal(err)
	}
	for name, data := range map[string][]byte{
		"png 16-bit":   mediatest.DeepPNG(t, 2000, 1500),
		"png RGBA":     mediatest.FlatPNG(t, 2000, 1500, color.NRGBA{1, 2, 3, 128}),
		"png grey":     mediatest.FlatPNG(t, 2000, 1500, color.Gray{0x80}),
		"png noisy":    mediatest.NoisyPNG(t, 1500, 1500),
		"jpeg 4:2:0":   jpegWithEXIF(t, 2000, 1500, 1),
		"jpeg odd":     jpegWithEXIF(t, 2001, 1499, 1),
		"jpeg grey":    jpegOf(t, image.NewGray(image.Rect(0, 0, 2000, 1500))),
		"webp photo":   webp,
		"png paletted": encodePNG(t, image.NewPaletted(image.Rect(0, 0, 2000, 1500), color.Palette{color.Black})),
	} {
		j, err := plan(data, Options{MaxPixels: DefaultMaxPixels, Sizes: []int{10}})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		cfg := image.Config{Width: j.width, Height: j.height}
		budget := decodedBytes(Sniff(data), cfg, data) + decoderOverhead + int64(len(data))
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		if _, err := j.decode(bytes.NewReader(data)); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		runtime.ReadMemStats(&after)
		used := int64(after.TotalAlloc - before.TotalAlloc)
		if used > budget {
			t.Errorf("%s: decoding allocated %d bytes, estimated %d", name, used, budget)
		}
		for _, sizes := range [][]int{{512, 128}, {1600}} {
			opts := Options{MaxPixels: DefaultMaxPixels, Sizes: sizes}
			j, _ := plan(data, opts)
			runtime.ReadMemStats(&before)
			if _, err := Process(context.Background(), bytes.NewReader(data), opts); err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			runtime.ReadMemStats(&after)
			if used := int64(after.TotalAlloc - before.TotalAlloc); used > j.memory {
				t.Errorf("%s, sizes %v: Process allocated %d bytes, estimated %d", name, sizes, used, j.memory)
			}
		}
	}
}

// A Process call's peak counts the file twice, the decoded picture, the
// scaler's rows, and every variant's pixels and JPEG (the largest twice
// when it is turned).
func TestPeakMemoryCountsTheWholePipeline(t *testing.T) {
	data := mediatest.DeepPNG(t, 16, 16)
	cfg := image.Config{Width: 4000, Height: 3000}
	decoded := decodedBytes(FormatPNG, cfg, data)
	if decoded < 8*4000*3000 {
		t.Fatalf("decoded %d", decoded)
	}
	photo := variantSizes(4000, 3000, []int{512, 128})
	if photo[0] != image.Pt(512, 384) || photo[1] != image.Pt(128, 96) {
		t.Fatalf("variants %v", photo)
	}
	upright := peakMemory(FormatPNG, cfg, data, photo, false)
	turned := peakMemory(FormatPNG, cfg, data, photo, true)
	if turned-upright != 4*512*384 {
		t.Errorf("turning costs %d, want a second copy of the largest variant", turned-upright)
	}
	pixels := int64(8 * (512*384 + 128*96))
	fixed := 2*int64(len(data)) + decoderOverhead + decoded + pixels
	scaling := upright - fixed
	if want := scaleBytes(image.Pt(4000, 3000), photo[0]) + scaleBytes(photo[0], photo[1]); scaling != want {
		t.Errorf("scaling counted %d, want %d", scaling, want)
	}
	if scaling <= 0 || scaling > 2<<20 {
		t.Errorf("scaling a 12-megapixel picture costs %d", scaling)
	}
}

// The scaler reads no more source pixels per destination pixel than
// scaleBytes counts, however the sizes compare.
func TestFilterTapsBoundTheFilter(t *testing.T) {
	for _, c := range [][2]int{{1, 1}, {10, 10}, {7, 3}, {6320, 1600}, {6320, 512}, {4000, 1}, {1600, 1599}, {3, 1600}, {40_000, 1600}} {
		f := newFilter(c[0], c[1])
		if int64(f.maxTaps) > filterTaps(c[0], c[1]) {
			t.Errorf("%d → %d: %d taps, counted %d", c[0], c[1], f.maxTaps, filterTaps(c[0], c[1]))
		}
		if int64(cap(f.weights)) > int64(c[1])*filterTaps(c[0], c[1]) {
			t.Errorf("%d → %d: %d weights", c[0], c[1], cap(f.weights))
		}
	}
}

// scaleOnWhite gives what x/image/draw's Catmull-Rom scaling over white
// gave before it, to within rounding: one level where the picture is
// opaque, two where it is translucent (premultiplied to 8 bits first).
func TestScaleOnWhiteMatchesCatmullRom(t *testing.T) {
	const band = 100 // the top rows are translucent
	src := testImage(640, 480)
	for y := range band {
		for x := range 640 {
			c := src.NRGBAAt(x, y)
			c.A = uint8(x * 255 / 639)
			src.SetNRGBA(x, y, c)
		}
	}
	for _, size := range []image.Point{{512, 384}, {128, 96}, {640, 480}, {333, 250}} {
		want := image.NewRGBA(image.Rectangle{Max: size})
		xdraw.Draw(want, want.Bounds(), image.NewUniform(color.White), image.Point{}, xdraw.Src)
		xdraw.CatmullRom.Scale(want, want.Bounds(), src, src.Bounds(), xdraw.Over, nil)
		got := scaleOnWhite(src, size)
		translucent := (band + 3) * size.Y / 480 // the filter reaches a little further
		for i := range got.Pix {
			y, tolerance := i/got.Stride, 1
			if y <= translucent {
				tolerance = 2
			}
			if d := abs(int(got.Pix[i]) - int(want.Pix[i])); d > tolerance {
				t.Errorf("%v: %d levels apart at x=%d y=%d", size, d, i%got.Stride/4, y)
				break
			}
		}
	}
}

func abs(n int) int { return max(n, -n) }

// pngInterlaced marks a PNG's header as Adam7-interlaced (only the header
// is read: the data no longer matches).
func pngInterlaced(t *testing.T, data []byte) []byte {
	t.Helper()
	out := bytes.Clone(data)
	out[28] = 1
	binary.BigEndian.PutUint32(out[29:], crc32.ChecksumIEEE(out[12:29]))
	return out
}

// pngWithTRNS adds a tRNS chunk (grey 0 is transparent) after the header.
func pngWithTRNS(t *testing.T, data []byte) []byte {
	t.Helper()
	chunk := binary.BigEndian.AppendUint32(nil, 2)
	chunk = append(chunk, "tRNS\x00\x00"...)
	chunk = binary.BigEndian.AppendUint32(chunk, crc32.ChecksumIEEE(chunk[4:]))
	const ihdrEnd = 8 + 12 + 13
	return append(append(bytes.Clone(data[:ihdrEnd]), chunk...), data[ihdrEnd:]...)
}

// jpegProgressive marks a baseline JPEG's frame as progressive (only the
// markers are read).
func jpegProgressive(t *testing.T, data []byte) []byte {
	t.Helper()
	out := bytes.Clone(data)
	i := bytes.Index(out, []byte{0xFF, 0xC0})
	if i < 0 {
		t.Fatal("no baseline frame")
	}
	out[i+1] = 0xC2
	return out
}

func jpegOf(t *testing.T, img image.Image) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := jpeg.Encode(&buf, img, nil); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}
