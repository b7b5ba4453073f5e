// Package media is Harmony's image pipeline for uploads (profile photos,
// appointment scans): it recognises JPEG, PNG and WebP by their magic
// bytes, refuses files and pictures that are too big before decoding them
// (by bytes on disk, by pixels, and by the memory decoding would take),
// bounds the memory all decodes in the process hold at once, turns phone
// photos upright from their EXIF orientation, and re-encodes every size as
// a fresh JPEG, which drops all metadata (GPS positions included). It
// stores nothing.
package media

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"image"
	"image/jpeg"
	"image/png"
	"io"
	"runtime"
	"slices"

	"golang.org/x/image/webp"
	"golang.org/x/sync/semaphore"
)

// Default limits, used when Options leave them zero.
const (
	// DefaultMaxBytes is the largest file accepted.
	DefaultMaxBytes = 10 << 20
	// DefaultMaxPixels is the most pixels accepted, checked from the
	// header before any pixel is decoded. Memory is bounded separately,
	// by MemoryBudget: a 40-megapixel picture may still need too much.
	DefaultMaxPixels = 40_000_000
	jpegQuality      = 85
)

// Errors a person can act on. Every error Process returns for a bad file
// wraps one of them.
var (
	ErrUnsupported   = errors.New("media: not a JPEG, PNG or WebP image")
	ErrTooLarge      = errors.New("media: file too large")
	ErrTooManyPixels = errors.New("media: image has too many pixels")
	// ErrTooMuchMemory is an image whose processing would need more than
	// MemoryBudget: 16-bit colour, a progressive JPEG, many megapixels.
	ErrTooMuchMemory = errors.New("media: image needs too much memory to decode")
	ErrDamaged       = errors.New("media: image could not be decoded")
)

// Options say what to accept and what to make.
type Options struct {
	// MaxBytes is the largest file accepted; 0 means DefaultMaxBytes.
	MaxBytes int
	// MaxPixels is the most pixels (width × height) accepted; 0 means
	// DefaultMaxPixels.
	MaxPixels int64
	// Sizes are the variants to make, each the longest side in pixels. An
	// image is scaled down to fit, never up. At least one is needed.
	Sizes []int
}

// Result is a processed image.
type Result struct {
	// Variants are the JPEGs, by size from Options.Sizes.
	Variants map[int][]byte
	// Width and Height are the original's, upright (after the EXIF
	// orientation).
	Width, Height int
}

// memoryInUse holds each running Process call's peak memory, whichever
// module asked, so that together they stay within MemoryBudget.
var memoryInUse = semaphore.NewWeighted(MemoryBudget)

// Format names the image types accepted, from their magic bytes.
type Format int

const (
	FormatUnknown Format = iota
	FormatJPEG
	FormatPNG
	FormatWebP
)

// Sniff reads the magic bytes; a file name or a declared content type is
// never trusted.
func Sniff(data []byte) Format {
	switch {
	case bytes.HasPrefix(data, []byte{0xFF, 0xD8, 0xFF}):
		return FormatJPEG
	case bytes.HasPrefix(data, []byte("\x89PNG\r\n\x1a\n")):
		return FormatPNG
	case len(data) >= 12 && string(data[:4]) == "RIFF" && string(data[8:12]) == "WEBP":
		return FormatWebP
	}
	return FormatUnknown
}

// Process reads an uploaded image from r, checks it and makes its
// variants. It reads at most MaxBytes+1 bytes. From the image's header it
// works out the memory it will need (peakMemory), refuses an image over
// MemoryBudget, and waits until that much of the budget is free or ctx
// ends.
func Process(ctx context.Context, r io.Reader, opts Options) (Result, error) {
	if opts.MaxBytes <= 0 {
		opts.MaxBytes = DefaultMaxBytes
	}
	if opts.MaxPixels <= 0 {
		opts.MaxPixels = DefaultMaxPixels
	}
	if len(opts.Sizes) == 0 {
		return Result{}, errors.New("media: no sizes asked for")
	}
	for _, s := range opts.Sizes {
		if s <= 0 {
			return Result{}, fmt.Errorf("media: size %d", s)
		}
	}
	data, err := readAll(r, opts.MaxBytes+1)
	if err != nil {
		return Result{}, err
	}
	if len(data) > opts.MaxBytes {
		return Result{}, ErrTooLarge
	}
	j, err := plan(data, opts)
	if err != nil {
		return Result{}, err
	}
	if j.memory > MemoryBudget {
		return Result{}, fmt.Errorf("%w: %d MiB", ErrTooMuchMemory, j.memory>>20)
	}
	if err := memoryInUse.Acquire(ctx, j.memory); err != nil {
		return Result{}, err
	}
	defer memoryInUse.Release(j.memory)
	if j.memory >= MemoryBudget/8 {
		// Collect the decoded picture before the next decode may start.
		// Without this the heap keeps it until its next collection, which
		// the pacer sets at twice the live heap, and the next large
		// picture does not always reuse its pages: 4 uploads of the
		// largest accepted image one after the other peaked at 2.7 times
		// MemoryBudget (docs/PERFORMANCE.md). The collection costs well
		// under a millisecond here, as pixels hold no pointers to scan.
		defer runtime.GC()
	}
	return j.run()
}

// readAll reads r to its end or to limit bytes. It starts with room for
// what r says it holds (a bytes.Reader), so an upload already in memory
// is copied once instead of being grown into, which leaves several times
// its size of garbage.
func readAll(r io.Reader, limit int) ([]byte, error) {
	size := 512
	if sized, ok := r.(interface{ Len() int }); ok {
		size = min(sized.Len(), limit) + 1 // +1: room to see the end
	}
	data := make([]byte, 0, size)
	r = io.LimitReader(r, int64(limit))
	for {
		if len(data) == cap(data) {
			data = append(data, 0)[:len(data)]
		}
		n, err := r.Read(data[len(data):cap(data)])
		data = data[:len(data)+n]
		if err == io.EOF {
			return data, nil
		}
		if err != nil {
			return nil, err
		}
	}
}

// job is an image checked from its header, ready to decode.
type job struct {
	data        []byte
	decode      func(io.Reader) (image.Image, error)
	orientation int
	// sizes are the variants asked for, largest first, without repeats.
	sizes []int
	// scaled is the largest variant's size before it is turned.
	scaled image.Point
	// width and height are the original's, upright.
	width, height int
	memory        int64
}

// plan reads the image's header: its format, its size, its orientation and
// the memory processing it will take.
func plan(data []byte, opts Options) (job, error) {
	format := Sniff(data)
	var decodeConfig func(io.Reader) (image.Config, error)
	j := job{data: data, orientation: 1}
	switch format {
	case FormatJPEG:
		decodeConfig, j.decode = jpeg.DecodeConfig, jpeg.Decode
		j.orientation = jpegOrientation(data)
	case FormatPNG:
		decodeConfig, j.decode = png.DecodeConfig, png.Decode
	case FormatWebP:
		decodeConfig, j.decode = webp.DecodeConfig, webp.Decode
	default:
		return job{}, ErrUnsupported
	}
	cfg, err := decodeConfig(bytes.NewReader(data))
	if err != nil {
		return job{}, fmt.Errorf("%w: %v", ErrDamaged, err)
	}
	if cfg.Width <= 0 || cfg.Height <= 0 {
		return job{}, ErrDamaged
	}
	if int64(cfg.Width)*int64(cfg.Height) > opts.MaxPixels {
		return job{}, ErrTooManyPixels
	}
	j.width, j.height = cfg.Width, cfg.Height
	if j.orientation >= 5 {
		j.width, j.height = cfg.Height, cfg.Width
	}
	// The largest variant is scaled from the original, then turned; the
	// smaller ones are scaled from it, which is cheaper and as good.
	j.sizes = slices.Clone(opts.Sizes)
	slices.SortFunc(j.sizes, func(a, b int) int { return b - a })
	j.sizes = slices.Compact(j.sizes)
	variants := variantSizes(cfg.Width, cfg.Height, j.sizes)
	j.scaled = variants[0]
	j.memory = peakMemory(format, cfg, data, variants, j.orientation >= 2)
	return j, nil
}

// variantSizes are the variants' sizes, before turning, for sizes sorted
// largest first.
func variantSizes(w, h int, sizes []int) []image.Point {
	largest := fitSize(w, h, sizes[0])
	out := []image.Point{largest}
	for _, side := range sizes[1:] {
		out = append(out, fitSize(largest.X, largest.Y, side))
	}
	return out
}

// run decodes the image and makes its variants. The decoded picture is
// not used, so not kept, once the largest variant is scaled from it.
func (j job) run() (Result, error) {
	img, err := j.decode(bytes.NewReader(j.data))
	if err != nil {
		return Result{}, fmt.Errorf("%w: %v", ErrDamaged, err)
	}
	largest := orient(scaleOnWhite(img, j.scaled), j.orientation)
	out := Result{Variants: make(map[int][]byte, len(j.sizes)), Width: j.width, Height: j.height}
	for i, side := range j.sizes {
		v := largest
		if i > 0 {
			v = scaleOnWhite(largest, fitSize(largest.Rect.Dx(), largest.Rect.Dy(), side))
		}
		if out.Variants[side], err = encodeJPEG(v); err != nil {
			return Result{}, err
		}
	}
	return out, nil
}

func encodeJPEG(img image.Image) ([]byte, error) {
	var buf bytes.Buffer
	if err := jpeg.Encode(&buf, img, &jpeg.Options{Quality: jpegQuality}); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// orient turns an image as stored into the image as meant to be seen, for
// EXIF orientation o (1 to 8).
func orient(src *image.RGBA, o int) *image.RGBA {
	if o < 2 || o > 8 {
		return src
	}
	w, h := src.Bounds().Dx(), src.Bounds().Dy()
	dw, dh := w, h
	if o >= 5 {
		dw, dh = h, w
	}
	dst := image.NewRGBA(image.Rect(0, 0, dw, dh))
	for y := 0; y < dh; y++ {
		for x := 0; x < dw; x++ {
			var sx, sy int
			switch o {
			case 2: // mirrored
				sx, sy = w-1-x, y
			case 3: // upside down
				sx, sy = w-1-x, h-1-y
			case 4: // mirrored upside down
				sx, sy = x, h-1-y
			case 5: // transposed
				sx, sy = y, x
			case 6: // turned a quarter anticlockwise: rotate clockwise
				sx, sy = y, h-1-x
			case 7: // transversed
				sx, sy = w-1-y, h-1-x
			case 8: // turned a quarter clockwise: rotate anticlockwise
				sx, sy = w-1-y, x
			}
			dst.SetRGBA(x, y, src.RGBAAt(sx, sy))
		}
	}
	return dst
}
