package groups

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/harmony/harmony/internal/ai"
	"github.com/harmony/harmony/internal/app/account"
	"github.com/harmony/harmony/internal/auth"
	"github.com/harmony/harmony/internal/fault"
	"github.com/harmony/harmony/internal/media"
	"github.com/harmony/harmony/internal/memberdata"
	"github.com/harmony/harmony/internal/storage"
	"github.com/harmony/harmony/internal/storage/quota"
)

// Scan limits: the profile photo's checks (the shared media pipeline's
// defaults), one stored JPEG of at most scanSide pixels.
const (
	MaxScanBytes = media.DefaultMaxBytes
	scanSide     = 1600
	// scanBodyLimit is the upload route's body limit: the file plus the
	// multipart framing and the CSRF field.
	scanBodyLimit = MaxScanBytes + 64<<10
	// joinBodyLimit is the join route's: a guest's optional photo plus
	// the name and CSRF fields.
	joinBodyLimit = account.MaxPhotoBytes + 64<<10
)

// Reading a scan is a paid call to the AI API, so each person (a guest
// too) may ask scanReadsPerPerson times a day and each group
// scanReadsPerGroup times, counted in ScanQuota across instances (the
// shared quota kit); a read past either is ErrScanLimit, and calls
// nothing.
const (
	scanQuotaTable     = "ScanQuota"
	scanReadsPerPerson = 20
	scanReadsPerGroup  = 100
)

// Errors of reading a scan, each with its message: the limit, and the AI
// service's two ways of failing.
var (
	ErrScanLimit       = fault.New(http.StatusTooManyRequests, "groups.scan.error.limit", "groups: too many scans read today")
	errScanUnavailable = fault.New(http.StatusServiceUnavailable, "groups.scan.error.unavailable", "groups: the AI service did not answer")
	errScanUnreadable  = fault.New(http.StatusUnprocessableEntity, "groups.scan.error.unreadable", "groups: no appointment in the scan")
)

// scanLimit is a daily limit of max scan reads in table t.
func scanLimit(t *storage.Table, max int) quota.Limit {
	return quota.Limit{Table: t, Max: max, Window: 24 * time.Hour, Err: ErrScanLimit}
}

// Draft is an appointment read from a scan, to pre-fill the edit form
// (internal/ai owns the type). Zero fields were not found. Start and End are
// wall-clock readings: the form shows their date and time as they are, in
// the person's zone.
type Draft = ai.Draft

// Extractor reads an appointment card or letter (the stored scan JPEG)
// for the person userKey (whose AI usage it counts). internal/ai
// implements it; without one, "Read the scan" is not offered.
type Extractor interface {
	ExtractAppointment(ctx context.Context, userKey string, jpeg []byte) (Draft, error)
}

// UseExtractor turns on "Read the scan". Call it while wiring, before
// serving.
func (s *Service) UseExtractor(x Extractor) { s.extractor = x }

// CanExtract reports whether "Read the scan" is offered.
func (s *Service) CanExtract() bool { return s.extractor != nil }

// ErrNoScan is an appointment without a scan, or scan reading that is not
// configured (404).
var ErrNoScan = fault.NotFound("groups: no scan", nil)

// UploadScan checks and re-encodes a photo of an appointment card for an
// active member, stores it as the appointment's scan (replacing any
// earlier one) and marks the index row (hasScan, scanCapturedAt). Bad
// images are media's errors and store nothing.
func (s *Service) UploadScan(ctx context.Context, m Membership, appointmentID string, data []byte) error {
	d, err := s.Appointment(ctx, m, appointmentID)
	if err != nil {
		return err
	}
	img, err := media.Process(ctx, bytes.NewReader(data), media.Options{MaxBytes: MaxScanBytes, Sizes: []int{scanSide}})
	if err != nil {
		return err
	}
	if _, err := s.blobs.Put(ctx, scanBlobName(m.GroupID, appointmentID), img.Variants[scanSide], "image/jpeg"); err != nil {
		return err
	}
	now := s.now().UTC()
	row := d.Index
	row.HasScan, row.ScanCapturedAt, row.UpdatedAt = true, timePtr(now), now
	_, err = storage.Upsert(ctx, s.appointments, row)
	return err
}

// Scan returns an appointment's scan JPEG to an active member. Whether it
// may be seen comes from the tables (the membership, then the index row).
func (s *Service) Scan(ctx context.Context, m Membership, appointmentID string) ([]byte, error) {
	d, err := s.Appointment(ctx, m, appointmentID)
	if err != nil {
		return nil, err
	}
	return s.scanOf(ctx, d)
}

func (s *Service) scanOf(ctx context.Context, d AppointmentDetail) ([]byte, error) {
	if !d.Index.HasScan {
		return nil, ErrNoScan
	}
	b, err := s.blobs.Get(ctx, scanBlobName(d.Doc.GroupID, d.Doc.AppointmentID))
	if errors.Is(err, storage.ErrNotFound) {
		return nil, ErrNoScan
	}
	if err != nil {
		return nil, err
	}
	return b.Data, nil
}

// ReadScan asks the Extractor to read the appointment's scan for id.
func (s *Service) ReadScan(ctx context.Context, m Membership, id *auth.Identity, appointmentID string) (AppointmentDetail, Draft, error) {
	if s.extractor == nil {
		return AppointmentDetail{}, Draft{}, ErrNoScan
	}
	d, err := s.Appointment(ctx, m, appointmentID)
	if err != nil {
		return AppointmentDetail{}, Draft{}, err
	}
	jpeg, err := s.scanOf(ctx, d)
	if err != nil {
		return AppointmentDetail{}, Draft{}, err
	}
	key := id.UserKey
	if key == "" {
		key = id.MemberKey
	}
	if err := s.scansPerPerson.Take(ctx, "p|"+key, s.now()); err != nil {
		return AppointmentDetail{}, Draft{}, err
	}
	if err := s.scansPerGroup.Take(ctx, "g|"+m.GroupID, s.now()); err != nil {
		return AppointmentDetail{}, Draft{}, err
	}
	if id.Guest {
		// Anyone with a link joins as a new guest, and anyone may open
		// groups: a guest's reads count against the group's creator too,
		// so one account's groups share scanReadsPerGroup a day of them.
		// A creator who deleted their account is nobody's: their groups
		// keep the group's own bound alone, rather than all share one.
		g, err := s.group(ctx, m.GroupID)
		if err != nil {
			return AppointmentDetail{}, Draft{}, err
		}
		if !memberdata.IsForgotten(g.CreatedByUserKey) {
			if err := s.scansPerGroup.Take(ctx, "o|"+g.CreatedByUserKey, s.now()); err != nil {
				return AppointmentDetail{}, Draft{}, err
			}
		}
	}
	draft, err := s.extractor.ExtractAppointment(ctx, key, jpeg)
	switch {
	case errors.Is(err, ai.ErrUnavailable):
		err = fmt.Errorf("%w: %w", errScanUnavailable, err)
	case errors.Is(err, ai.ErrUnreadable):
		err = fmt.Errorf("%w: %w", errScanUnreadable, err)
	}
	return d, draft, err
}

// BodyLimits lets the scan upload and the join form (a guest's photo)
// take a photo larger than BODY_LIMIT.
func (s *Service) BodyLimits() map[string]int64 {
	return map[string]int64{
		"/groups/:id/appointments/:appt/scan": scanBodyLimit,
		"/join/:id/:session":                  joinBodyLimit,
	}
}
