package platform

import (
	"bytes"
	"image"
	"image/color"
	"image/png"
	"math"
)

// DemoArt is a demo picture: a sky from Top to Bottom (leaning a little
// with the width), with soft-edged discs of Accent. Modules' demo
// content draws its photos and covers with it, as PNG for the upload
// pipeline like any upload.
type DemoArt struct {
	Top, Bottom, Accent color.RGBA
	// Discs are {x, y, radius} in pixels; Strength is how much of Accent
	// a disc shows (1: all).
	Discs    [][3]int
	Strength float64
}

// PNG draws the picture at w×h pixels.
func (a DemoArt) PNG(w, h int) []byte {
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		t := float64(y) / float64(h)
		for x := range w {
			c := mixRGBA(a.Top, a.Bottom, t*0.85+float64(x)/float64(w)*0.15)
			for _, d := range a.Discs {
				dist := math.Hypot(float64(x-d[0]), float64(y-d[1]))
				if edge := float64(d[2]); dist < edge {
					// The last 20 pixels fade out.
					c = mixRGBA(c, a.Accent, a.Strength*math.Min(1, (edge-dist)/20))
				}
			}
			img.SetRGBA(x, y, c)
		}
	}
	var b bytes.Buffer
	png.Encode(&b, img) // an in-memory encode of a valid image does not fail
	return b.Bytes()
}

// mixRGBA is a blend of a and b, t of the way to b.
func mixRGBA(a, b color.RGBA, t float64) color.RGBA {
	f := func(x, y uint8) uint8 { return uint8(float64(x) + (float64(y)-float64(x))*t) }
	return color.RGBA{f(a.R, b.R), f(a.G, b.G), f(a.B, b.B), 255}
}

// HSL is a colour by hue (degrees), saturation and lightness (0 to 1).
func HSL(h int, s, l float64) color.RGBA {
	hf := math.Mod(float64(h), 360) / 60
	c := (1 - math.Abs(2*l-1)) * s
	x := c * (1 - math.Abs(math.Mod(hf, 2)-1))
	var r, g, b float64
	switch int(hf) {
	case 0:
		r, g = c, x
	case 1:
		r, g = x, c
	case 2:
		g, b = c, x
	case 3:
		g, b = x, c
	case 4:
		r, b = x, c
	default:
		r, b = c, x
	}
	m := l - c/2
	return color.RGBA{uint8((r + m) * 255), uint8((g + m) * 255), uint8((b + m) * 255), 255}
}
