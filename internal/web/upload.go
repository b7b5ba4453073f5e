package web

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/harmony/harmony/internal/formrule"
	"github.com/harmony/harmony/internal/media"
	"github.com/harmony/harmony/internal/ratelimit"
)

// ErrTooManyUploads is a client past its UploadPace.
var ErrTooManyUploads = errors.New("web: too many uploads from this client")

// The pace of one client's pictures: uploadBurst at once, then one every
// uploadEvery. Decoding a picture costs CPU that media's memory budget
// does not bound, and guests cost nothing to make, so the pace is the
// client address's (ratelimit.PerIP), not the account's.
const (
	uploadBurst = 10
	uploadEvery = 30 * time.Second
)

// UploadPace bounds how often one client has pictures decoded (a
// profile photo, an appointment's scan).
type UploadPace struct {
	limit *ratelimit.PerIP
	now   func() time.Time
}

// NewUploadPace is a pace on the clock now.
func NewUploadPace(now func() time.Time) *UploadPace {
	return &UploadPace{limit: ratelimit.New(uploadBurst, uploadEvery), now: now}
}

// Read is ReadUpload for a client within its pace; past it,
// ErrTooManyUploads before anything is decoded. A form that sent no file
// (ErrNoUpload: a chat message of words alone) takes nothing of the pace.
func (p *UploadPace) Read(c echo.Context, field string, max int64) ([]byte, error) {
	data, err := ReadUpload(c, field, max)
	if err != nil {
		return nil, err
	}
	if !p.limit.Allow(c.RealIP(), p.now()) {
		return nil, ErrTooManyUploads
	}
	return data, nil
}

// ErrNoUpload is a form that sent no file (or an empty one) in the field.
var ErrNoUpload = errors.New("web: no file in the upload")

// ReadUpload reads the multipart file in field, refusing one over max
// bytes (media.ErrTooLarge) without reading past it. The route's body limit
// stops anything much larger before it is read at all.
func ReadUpload(c echo.Context, field string, max int64) ([]byte, error) {
	fh, err := c.FormFile(field)
	var tooLarge *http.MaxBytesError
	switch {
	case errors.As(err, &tooLarge):
		return nil, media.ErrTooLarge
	case errors.Is(err, http.ErrMissingFile), errors.Is(err, http.ErrNotMultipart):
		return nil, ErrNoUpload
	case err != nil:
		return nil, fmt.Errorf("%w: %v", ErrNoUpload, err)
	case fh.Size == 0:
		return nil, ErrNoUpload
	case fh.Size > max:
		return nil, media.ErrTooLarge
	}
	f, err := fh.Open()
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, max+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > max {
		return nil, media.ErrTooLarge
	}
	return data, nil
}

// UploadRefusal maps what ReadUpload and media.Process refuse to the
// status and i18n key of the message the form shows (which takes the size
// limit as {mb}); ok is false for any other error.
func UploadRefusal(err error) (status int, messageKey string, ok bool) {
	switch {
	case errors.Is(err, ErrNoUpload):
		return http.StatusBadRequest, "upload.error.missing", true
	case errors.Is(err, ErrTooManyUploads):
		return http.StatusTooManyRequests, "upload.error.too_many", true
	case errors.Is(err, media.ErrTooLarge):
		return http.StatusRequestEntityTooLarge, "upload.error.too_large", true
	case errors.Is(err, media.ErrUnsupported):
		return http.StatusBadRequest, "upload.error.type", true
	case errors.Is(err, media.ErrTooManyPixels):
		return http.StatusBadRequest, "upload.error.pixels", true
	case errors.Is(err, media.ErrTooMuchMemory):
		return http.StatusBadRequest, "upload.error.memory", true
	case errors.Is(err, media.ErrDamaged):
		return http.StatusBadRequest, "upload.error.damaged", true
	}
	return 0, "", false
}

// BindWithUpload is BindForm for a form of T that may carry a file in
// field (an event's picture, a post's cover), which it puts where file
// says: nil when none was chosen. A file refused while reading (too
// large, damaged) is the field's error, which the form shows beside it.
// A body that cannot be read fails the upload as well, which says what
// went wrong; the fields are then empty, and the form's rules refuse them.
func BindWithUpload[T any](c echo.Context, field string, max int64, file func(*T) *[]byte) (T, formrule.FieldErrors) {
	var in T
	_ = BindForm(c, &in)
	data, err := ReadUpload(c, field, max)
	switch _, key, ok := UploadRefusal(err); {
	case errors.Is(err, ErrNoUpload):
		return in, nil
	case ok:
		return in, formrule.FieldErrors{field: key}
	case err != nil:
		return in, formrule.FieldErrors{field: "upload.error.damaged"}
	}
	*file(&in) = data
	return in, nil
}
