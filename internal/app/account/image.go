package account

import (
	"bytes"
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/jpeg"
	"image/png"

	xdraw "golang.org/x/image/draw"
	"golang.org/x/image/webp"
)

// Photo limits.
const (
	// MaxPhotoBytes is the largest photo file accepted.
	MaxPhotoBytes = 10 << 20
	// MaxPhotoPixels bounds decoding memory: it is checked from the header
	// before any pixel is decoded.
	MaxPhotoPixels = 40_000_000
	// Sizes of the stored copies: the longer side, in pixels.
	largePhotoSide = 512
	smallPhotoSide = 128
	jpegQuality    = 85
)

// Photo errors a person can act on.
var (
	ErrPhotoType     = errors.New("account: not a JPEG, PNG or WebP image")
	ErrPhotoTooLarge = errors.New("account: photo file too large")
	ErrPhotoPixels   = errors.New("account: photo has too many pixels")
	ErrPhotoDamaged  = errors.New("account: photo could not be decoded")
)

// photoFormat names the image types accepted, from their magic bytes.
type photoFormat int

const (
	formatUnknown photoFormat = iota
	formatJPEG
	formatPNG
	formatWebP
)

// sniffPhoto reads the magic bytes; the file name and the declared content
// type are not trusted.
func sniffPhoto(data []byte) photoFormat {
	switch {
	case bytes.HasPrefix(data, []byte{0xFF, 0xD8, 0xFF}):
		return formatJPEG
	case bytes.HasPrefix(data, []byte("\x89PNG\r\n\x1a\n")):
		return formatPNG
	case len(data) >= 12 && string(data[:4]) == "RIFF" && string(data[8:12]) == "WEBP":
		return formatWebP
	}
	return formatUnknown
}

// processedPhoto is a photo as stored: fresh JPEGs without any metadata.
type processedPhoto struct {
	Large, Small []byte
}

// processPhoto checks and re-encodes an uploaded photo. Re-encoding drops
// every metadata segment (EXIF with GPS positions, XMP, comments); the
// EXIF orientation is applied to the pixels first, so phone photos stay
// upright.
func processPhoto(data []byte) (processedPhoto, error) {
	if len(data) > MaxPhotoBytes {
		return processedPhoto{}, ErrPhotoTooLarge
	}
	format := sniffPhoto(data)
	var decodeConfig func([]byte) (image.Config, error)
	var decode func([]byte) (image.Image, error)
	switch format {
	case formatJPEG:
		decodeConfig = func(b []byte) (image.Config, error) { return jpeg.DecodeConfig(bytes.NewReader(b)) }
		decode = func(b []byte) (image.Image, error) { return jpeg.Decode(bytes.NewReader(b)) }
	case formatPNG:
		decodeConfig = func(b []byte) (image.Config, error) { return png.DecodeConfig(bytes.NewReader(b)) }
		decode = func(b []byte) (image.Image, error) { return png.Decode(bytes.NewReader(b)) }
	case formatWebP:
		decodeConfig = func(b []byte) (image.Config, error) { return webp.DecodeConfig(bytes.NewReader(b)) }
		decode = func(b []byte) (image.Image, error) { return webp.Decode(bytes.NewReader(b)) }
	default:
		return processedPhoto{}, ErrPhotoType
	}
	cfg, err := decodeConfig(data)
	if err != nil {
		return processedPhoto{}, fmt.Errorf("%w: %v", ErrPhotoDamaged, err)
	}
	if cfg.Width <= 0 || cfg.Height <= 0 {
		return processedPhoto{}, ErrPhotoDamaged
	}
	if int64(cfg.Width)*int64(cfg.Height) > MaxPhotoPixels {
		return processedPhoto{}, ErrPhotoPixels
	}
	img, err := decode(data)
	if err != nil {
		return processedPhoto{}, fmt.Errorf("%w: %v", ErrPhotoDamaged, err)
	}
	orientation := 1
	if format == formatJPEG {
		orientation = jpegOrientation(data)
	}
	large := orient(fit(img, largePhotoSide), orientation)
	small := fit(large, smallPhotoSide)
	var out processedPhoto
	if out.Large, err = encodeJPEG(large); err != nil {
		return processedPhoto{}, err
	}
	if out.Small, err = encodeJPEG(small); err != nil {
		return processedPhoto{}, err
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
