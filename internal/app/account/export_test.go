package account

import (
	"crypto/rand"
	"image"
	"testing"
)

// Fixtures the HTTP tests (package account_test) share with the unit tests.
var (
	JPEGWithEXIF = jpegWithEXIF
	PNGHeader    = pngHeader
	GPSSecret    = gpsSecret
)

// EncodedPNG is a w×h PNG.
func EncodedPNG(t testing.TB, w, h int) []byte { return encodePNG(t, testImage(w, h)) }

// NoisyPNG is a w×h PNG of random pixels, which does not compress: about
// 4·w·h bytes.
func NoisyPNG(t testing.TB, w, h int) []byte {
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	rand.Read(img.Pix)
	return encodePNG(t, img)
}
