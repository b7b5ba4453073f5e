package media

import (
	"bytes"
	"encoding/binary"
	"image"
	"math"
)

// Memory the pipeline may hold, in bytes.
const (
	// MemoryBudget is the memory every Process call in the process may
	// hold at once: decoded pixels, the decoder's own buffers, the working
	// copies and the encoded variants. An image whose peak alone is over it
	// is refused before decoding (ErrTooMuchMemory); others wait their turn.
	MemoryBudget = 192 << 20
	// decoderOverhead covers a decoder's tables, bufio and zlib buffers.
	decoderOverhead = 1 << 20
)

// peakMemory is the most memory one Process call holds for an image of
// format and cfg (its header), read from data, made into variants (their
// pixel sizes, largest first), turned by orient when turned is set. It is
// an upper bound: every figure is what the decoders and this package
// allocate, rounded up.
func peakMemory(format Format, cfg image.Config, data []byte, variants []image.Point, turned bool) int64 {
	// The bytes read, and what a decoder copies of them (WebP reads its
	// partitions into memory).
	total := 2*int64(len(data)) + decoderOverhead
	total += decodedBytes(format, cfg, data)
	// The largest variant is scaled from the original, the others from it.
	src := image.Pt(cfg.Width, cfg.Height)
	for i, v := range variants {
		if i > 0 {
			src = variants[0]
		}
		total += scaleBytes(src, v)
		// The variant's pixels, and its JPEG counted at 4 bytes a pixel
		// (random noise comes to 0.8 at quality 85, and the buffer it is
		// written into grows to at most twice that).
		total += 8 * int64(v.X) * int64(v.Y)
	}
	if turned && len(variants) > 0 {
		total += 4 * int64(variants[0].X) * int64(variants[0].Y)
	}
	return total
}

// decodedBytes is what decoding an image takes: its pixels in the type the
// decoder returns, and whatever else the decoder allocates as large as the
// picture (progressive JPEG coefficients, interlaced PNG passes, WebP
// lossless transforms).
func decodedBytes(format Format, cfg image.Config, data []byte) int64 {
	w, h := int64(cfg.Width), int64(cfg.Height)
	switch format {
	case FormatPNG:
		return pngDecodedBytes(data, w, h)
	case FormatJPEG:
		return jpegDecodedBytes(data, w, h)
	case FormatWebP:
		if len(data) >= 16 && string(data[12:16]) == "VP8 " {
			// Plain lossy: 4:2:0 YCbCr in 16×16 macroblocks.
			return 384 * ceilDiv(w, 16) * ceilDiv(h, 16)
		}
		// Lossless (4 bytes a pixel, twice when a colour-indexing
		// transform expands it), or lossy with an alpha plane that is
		// itself decoded as a lossless image: at most 8 bytes a pixel.
		return 8 * w * h
	}
	return maxBytesPerPixel * w * h
}

// maxBytesPerPixel bounds every format's decoding: a progressive CMYK
// JPEG (4 planes, 16 bytes of coefficients and a 4-byte CMYK copy). It is
// used when a header cannot be read as expected.
const maxBytesPerPixel = 24

// pngDecodedBytes reads the PNG header: the colour type and bit depth say
// which image type png.Decode returns, a tRNS chunk can widen grey to
// NRGBA, and an interlaced image is decoded pass by pass next to the
// whole.
func pngDecodedBytes(data []byte, w, h int64) int64 {
	const ihdrEnd = 8 + 8 + 13
	if len(data) < ihdrEnd || string(data[12:16]) != "IHDR" {
		return maxBytesPerPixel * w * h
	}
	depth, colorType, interlaced := data[24], data[25], data[28] == 1
	transparent := pngHasTRNS(data)
	var perPixel int64
	switch colorType {
	case 0: // grey: Gray or Gray16, NRGBA or NRGBA64 with a transparent colour
		switch {
		case depth == 16 && transparent:
			perPixel = 8
		case depth == 16:
			perPixel = 2
		case transparent:
			perPixel = 4
		default:
			perPixel = 1
		}
	case 3: // paletted
		perPixel = 1
	default: // RGB, grey with alpha, RGBA: RGBA/NRGBA or their 64-bit forms
		perPixel = 4
		if depth == 16 {
			perPixel = 8
		}
	}
	pixels := perPixel * w * h
	if interlaced {
		pixels *= 2
	}
	// Two rows of filtered bytes, at most 8 a pixel.
	return pixels + 2*(8*w+1)
}

// pngHasTRNS reports whether a tRNS chunk comes before the image data.
func pngHasTRNS(data []byte) bool {
	for i := 8; i+8 <= len(data); {
		n := int64(binary.BigEndian.Uint32(data[i:]))
		switch string(data[i+4 : i+8]) {
		case "tRNS":
			return true
		case "IDAT", "IEND":
			return false
		}
		next := int64(i) + 12 + n
		if next > int64(len(data)) {
			return false
		}
		i = int(next)
	}
	return false
}

// jpegFrame is what a JPEG's markers before its scan say about decoding.
type jpegFrame struct {
	progressive bool
	// components' sampling factors (h, v) and identifiers, as image/jpeg
	// reads them.
	h, v, id []int
	jfif     bool
	// adobeTransform is the Adobe APP14 colour transform, -1 without one.
	adobeTransform int
}

// readJPEGFrame walks the markers up to the first scan.
func readJPEGFrame(data []byte) (jpegFrame, bool) {
	f := jpegFrame{adobeTransform: -1}
	if len(data) < 4 || data[0] != 0xFF || data[1] != 0xD8 {
		return f, false
	}
	for i := 2; i+4 <= len(data); {
		if data[i] != 0xFF {
			return f, false
		}
		marker := data[i+1]
		if marker == 0xFF { // fill byte
			i++
			continue
		}
		if marker == 0xDA || marker == 0xD9 { // start of scan, end of image
			return f, f.h != nil
		}
		size := int(binary.BigEndian.Uint16(data[i+2:]))
		if size < 2 || i+2+size > len(data) {
			return f, false
		}
		segment := data[i+4 : i+2+size]
		switch {
		case marker == 0xC0 || marker == 0xC1 || marker == 0xC2: // the frames image/jpeg decodes
			if len(segment) < 6 || int(segment[5]) < 1 || len(segment) < 6+3*int(segment[5]) {
				return f, false
			}
			f.progressive = marker == 0xC2
			for c := range int(segment[5]) {
				comp := segment[6+3*c:]
				f.id = append(f.id, int(comp[0]))
				f.h = append(f.h, max(1, int(comp[1]>>4)))
				f.v = append(f.v, max(1, int(comp[1]&0x0F)))
			}
		case marker == 0xE0 && bytes.HasPrefix(segment, []byte("JFIF\x00")):
			f.jfif = true
		case marker == 0xEE && len(segment) >= 12 && bytes.HasPrefix(segment, []byte("Adobe")):
			f.adobeTransform = int(segment[11])
		}
		i += 2 + size
	}
	return f, false
}

// jpegDecodedBytes follows image/jpeg: one plane per component, padded
// to whole MCUs; a progressive image keeps every block's coefficients (64
// int32s, 4 bytes a sample); RGB and CMYK images are converted into a
// 4-byte-a-pixel copy at the end.
func jpegDecodedBytes(data []byte, w, h int64) int64 {
	f, ok := readJPEGFrame(data)
	n := len(f.h)
	if !ok || (n != 1 && n != 3 && n != 4) {
		return maxBytesPerPixel * w * h
	}
	if n == 1 {
		// A single component is always decoded in 8×8 blocks.
		f.h[0], f.v[0] = 1, 1
	}
	mxx, myy := ceilDiv(w, 8*int64(f.h[0])), ceilDiv(h, 8*int64(f.v[0]))
	var samples int64
	for c := range n {
		samples += 64 * int64(f.h[c]) * int64(f.v[c]) * mxx * myy
	}
	total := samples
	if f.progressive {
		total += 4 * samples
	}
	isRGB := !f.jfif && (f.adobeTransform == 0 || n == 3 && f.id[0] == 'R' && f.id[1] == 'G' && f.id[2] == 'B')
	if n == 4 || n == 3 && isRGB {
		total += 4 * w * h
	}
	return total
}

// scaleBytes is what scaleOnWhite holds besides its result to scale an
// image of size src to size dst: one source row as RGBA, a float32 RGBA
// row for each tap of the vertical filter, and both filters' weights.
func scaleBytes(src, dst image.Point) int64 {
	tx, ty := filterTaps(src.X, dst.X), filterTaps(src.Y, dst.Y)
	return 4*int64(src.X) + 16*ty*int64(dst.X) + 4*(tx*int64(dst.X)+ty*int64(dst.Y)) + 8*int64(dst.X+dst.Y+2)
}

// filterTaps is the most source pixels one destination pixel reads when
// n pixels are scaled to m with the Catmull-Rom filter (support 2,
// widened by the scale when shrinking).
func filterTaps(n, m int) int64 {
	scale := max(1, float64(n)/float64(max(m, 1)))
	return int64(math.Ceil(4*scale)) + 2
}

func ceilDiv(a, b int64) int64 { return (a + b - 1) / b }
