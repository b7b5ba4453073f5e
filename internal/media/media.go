// Package media is Harmony's image pipeline for uploads (profile photos,
// appointment scans): it recognises JPEG, PNG and WebP by their magic
// bytes, refuses files and pictures that are too big before decoding them,
// turns phone photos upright from their EXIF orientation, and re-encodes
// every size as a fresh JPEG, which drops all metadata (GPS positions
// included). It stores nothing.
package media

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/jpeg"
	"image/png"
	"io"
	"slices"

	xdraw "golang.org/x/image/draw"
	"golang.org/x/image/webp"
)

// Default limits, used when Options leave them zero.
const (
	// DefaultMaxBytes is the largest file accepted.
	DefaultMaxBytes = 10 << 20
	// DefaultMaxPixels bounds decoding memory: it is checked from the
	// header before any pixel is decoded.
	DefaultMaxPixels = 40_000_000
	jpegQuality      = 85
)

// Errors a person can act on. Every error Process returns for a bad file
// wraps one of them.
var (
	ErrUnsupported   = errors.New("media: not a JPEG, PNG or WebP image")
	ErrTooLarge      = errors.New("media: file too large")
	ErrTooManyPixels = errors.New("media: image has too many pixels")
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

// decodeSlots bounds concurrent decodes across the whole process: a
// 40-megapixel image takes 160 MB decoded, whichever module asked.
var decodeSlots = make(chan struct{}, 2)

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
// variants. It reads at most MaxBytes+1 bytes. It waits for a decode slot
// (two run at once in the process) until ctx ends.
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
	data, err := io.ReadAll(io.LimitReader(r, int64(opts.MaxBytes)+1))
	if err != nil {
		return Result{}, err
	}
	if len(data) > opts.MaxBytes {
		return Result{}, ErrTooLarge
	}
	select {
	case decodeSlots <- struct{}{}:
	case <-ctx.Done():
		return Result{}, ctx.Err()
	}
	defer func() { <-decodeSlots }()
	return process(data, opts)
}

func process(data []byte, opts Options) (Result, error) {
	format := Sniff(data)
	var decodeConfig func(io.Reader) (image.Config, error)
	var decode func(io.Reader) (image.Image, error)
	switch format {
	case FormatJPEG:
		decodeConfig, decode = jpeg.DecodeConfig, jpeg.Decode
	case FormatPNG:
		decodeConfig, decode = png.DecodeConfig, png.Decode
	case FormatWebP:
		decodeConfig, decode = webp.DecodeConfig, webp.Decode
	default:
		return Result{}, ErrUnsupported
	}
	cfg, err := decodeConfig(bytes.NewReader(data))
	if err != nil {
		return Result{}, fmt.Errorf("%w: %v", ErrDamaged, err)
	}
	if cfg.Width <= 0 || cfg.Height <= 0 {
		return Result{}, ErrDamaged
	}
	if int64(cfg.Width)*int64(cfg.Height) > opts.MaxPixels {
		return Result{}, ErrTooManyPixels
	}
	img, err := decode(bytes.NewReader(data))
	if err != nil {
		return Result{}, fmt.Errorf("%w: %v", ErrDamaged, err)
	}
	orientation := 1
	if format == FormatJPEG {
		orientation = jpegOrientation(data)
	}
	out := Result{Variants: make(map[int][]byte, len(opts.Sizes)), Width: cfg.Width, Height: cfg.Height}
	if orientation >= 5 {
		out.Width, out.Height = cfg.Height, cfg.Width
	}
	// The largest variant is scaled from the original, then turned; the
	// smaller ones are scaled from it, which is cheaper and as good.
	sizes := slices.Clone(opts.Sizes)
	slices.SortFunc(sizes, func(a, b int) int { return b - a })
	largest := orient(fit(img, sizes[0]), orientation)
	for _, side := range sizes {
		if _, done := out.Variants[side]; done {
			continue
		}
		v := largest
		if side != sizes[0] {
			v = fit(largest, side)
		}
		if out.Variants[side], err = encodeJPEG(v); err != nil {
			return Result{}, err
		}
	}
	return out, nil
}

// fit scales src down (never up) so its longer side is at most side,
// keeping the aspect ratio, onto white: JPEG has no transparency.
func fit(src image.Image, side int) *image.RGBA {
	b := src.Bounds()
	w, h := b.Dx(), b.Dy()
	if w > side || h > side {
		if w >= h {
			h = max(1, (h*side+w/2)/w)
			w = side
		} else {
			w = max(1, (w*side+h/2)/h)
			h = side
		}
	}
	dst := image.NewRGBA(image.Rect(0, 0, w, h))
	xdraw.Draw(dst, dst.Bounds(), image.NewUniform(color.White), image.Point{}, xdraw.Src)
	xdraw.CatmullRom.Scale(dst, dst.Bounds(), src, b, xdraw.Over, nil)
	return dst
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
