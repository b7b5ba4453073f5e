package media

import (
	"image"
	"image/draw"
	"math"
)

// fitSize is the size of a w×h image scaled down (never up) so its longer
// side is at most side, keeping the aspect ratio.
func fitSize(w, h, side int) image.Point {
	if w > side || h > side {
		if w >= h {
			h = max(1, (h*side+w/2)/w)
			w = side
		} else {
			w = max(1, (w*side+h/2)/h)
			h = side
		}
	}
	return image.Pt(w, h)
}

// scaleOnWhite scales src to size (no larger than src) with the
// Catmull-Rom filter and lays it onto white: JPEG has no transparency.
// It computes what x/image/draw's CatmullRom.Scale computes, but one
// destination row at a time: that one first scales every source row
// across into a float64 buffer (size.X × source height × 32 bytes, 320 MB
// for a 6320-pixel-high picture scaled to 1600), this one keeps only the
// rows the filter is reading (see scaleBytes).
func scaleOnWhite(src image.Image, size image.Point) *image.RGBA {
	sr := src.Bounds()
	across, down := newFilter(sr.Dx(), size.X), newFilter(sr.Dy(), size.Y)
	// row holds one source row as premultiplied RGBA; ring the rows scaled
	// across that the current destination row reads, source row r in
	// ring[r % len(ring)].
	row := image.NewRGBA(image.Rect(0, 0, sr.Dx(), 1))
	ring := make([][]float32, down.maxTaps)
	for i := range ring {
		ring[i] = make([]float32, 4*size.X)
	}
	sum := make([]float32, 4*size.X)
	dst := image.NewRGBA(image.Rectangle{Max: size})
	next := 0 // the next source row to scale across
	for y := range size.Y {
		first, weights := down.taps(y)
		for next = max(next, first); next < first+len(weights); next++ {
			draw.Draw(row, row.Rect, src, image.Pt(sr.Min.X, sr.Min.Y+next), draw.Src)
			scaleRow(ring[next%len(ring)], row.Pix, across)
		}
		clear(sum)
		for k, wt := range weights {
			if wt == 0 {
				continue
			}
			for i, v := range ring[(first+k)%len(ring)] {
				sum[i] += wt * v
			}
		}
		out := dst.Pix[y*dst.Stride : y*dst.Stride+4*size.X]
		for i := 0; i < len(out); i += 4 {
			a := clampf(sum[i+3], 0, 255)
			// Over white: premultiplied colour plus the white showing
			// through.
			out[i+0] = uint8(clampf(sum[i+0], 0, a) + 255 - a + 0.5)
			out[i+1] = uint8(clampf(sum[i+1], 0, a) + 255 - a + 0.5)
			out[i+2] = uint8(clampf(sum[i+2], 0, a) + 255 - a + 0.5)
			out[i+3] = 255
		}
	}
	return dst
}

// scaleRow scales one premultiplied RGBA row across into out (4 float32s
// a pixel).
func scaleRow(out []float32, pix []uint8, f filter) {
	for x := range len(out) / 4 {
		first, weights := f.taps(x)
		var r, g, b, a float32
		p := pix[4*first : 4*(first+len(weights))]
		for k, wt := range weights {
			q := p[4*k : 4*k+4 : 4*k+4]
			r += wt * float32(q[0])
			g += wt * float32(q[1])
			b += wt * float32(q[2])
			a += wt * float32(q[3])
		}
		out[4*x], out[4*x+1], out[4*x+2], out[4*x+3] = r, g, b, a
	}
}

// filter holds, for each destination pixel along one axis, the first
// source pixel it reads and the normalised Catmull-Rom weights of the
// consecutive pixels from there (x/image/draw's distrib, with the same
// centres and support).
type filter struct {
	first   []int32
	offsets []int32 // weights of pixel i are weights[offsets[i]:offsets[i+1]]
	weights []float32
	maxTaps int
}

func (f filter) taps(i int) (int, []float32) {
	return int(f.first[i]), f.weights[f.offsets[i]:f.offsets[i+1]]
}

// newFilter maps n source pixels onto m.
func newFilter(n, m int) filter {
	const support = 2
	scale := float64(n) / float64(m)
	halfWidth, argScale := float64(support), 1.0
	if scale > 1 { // shrinking: widen the filter so every source pixel counts
		halfWidth *= scale
		argScale = 1 / scale
	}
	f := filter{first: make([]int32, m), offsets: make([]int32, m+1)}
	f.weights = make([]float32, 0, int64(m)*filterTaps(n, m))
	for i := range m {
		center := (float64(i)+0.5)*scale - 0.5
		lo := max(0, int(math.Floor(center-halfWidth)))
		hi := max(lo, min(n, int(math.Ceil(center+halfWidth))))
		start := len(f.weights)
		total := 0.0
		for s := lo; s < hi; s++ {
			wt := catmullRom(math.Abs((center - float64(s)) * argScale))
			total += wt
			f.weights = append(f.weights, float32(wt))
		}
		if total != 0 {
			for k := start; k < len(f.weights); k++ {
				f.weights[k] = float32(float64(f.weights[k]) / total)
			}
		}
		f.first[i], f.offsets[i+1] = int32(lo), int32(len(f.weights))
		f.maxTaps = max(f.maxTaps, hi-lo)
	}
	f.maxTaps = max(f.maxTaps, 1)
	return f
}

// catmullRom is the cubic B-C spline with B=0, C=0.5, support 2.
func catmullRom(t float64) float64 {
	switch {
	case t < 1:
		return (1.5*t-2.5)*t*t + 1
	case t < 2:
		return ((-0.5*t+2.5)*t-4)*t + 2
	}
	return 0
}

func clampf(v, lo, hi float32) float32 {
	return min(max(v, lo), hi)
}
