package account

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"strings"
	"time"

	"github.com/harmony/harmony/internal/fault"
	"github.com/harmony/harmony/internal/storage"
)

// Discovery: the people module shows the accounts that chose "Show me in
// People" (ProfileRow.InPeople). The directory's projection keeps, beside
// each account's row, a copy in one partition, "discover", for each
// enabled account shown in People, with what Discover's filters and
// cards need: a page of people is one filtered query of that partition,
// not a walk of the 16 directory partitions, nor a read per person.
//
// Its rows are keyed "{spread}|{memberKey}", spread the first four hex
// digits of sha256(memberKey), which scatters people over the keys
// whatever their sign-up order. A listing starts where its caller says
// (PeopleFilter.From) and wraps around, so Discover can begin at a
// place of the viewer's own each day: nobody is always first, as the
// first to sign up were while the rows were keyed by memberKey.

// peoplePartition is the Users partition of the accounts shown in People;
// a directory bucket is "user|{h}", so it is no bucket.
const peoplePartition = "discover"

// legacyPeoplePartition held the People rows keyed by memberKey alone,
// before the spread; Seed rebuilds the directory once while it has rows.
const legacyPeoplePartition = "people"

// spreadLen is the length of a People row key's spread, in hex digits.
const spreadLen = 4

// Spread is where seed falls among the People rows' keys: four hex
// digits, a start for PeopleFilter.From.
func Spread(seed string) string {
	sum := sha256.Sum256([]byte(seed))
	return hex.EncodeToString(sum[:spreadLen/2])
}

// peopleRowKey is memberKey's RowKey in the People partition.
func peopleRowKey(memberKey string) string { return Spread(memberKey) + "|" + memberKey }

// isSpread reports whether s is a Spread.
func isSpread(s string) bool {
	_, err := hex.DecodeString(s)
	return err == nil && len(s) == spreadLen && strings.ToLower(s) == s
}

// peopleRing walks the People partition from its start to the end, then
// from the beginning to the start: two buckets, "from|{start}" and
// "until|{start}". A cursor carries its start, so a listing begun before
// the start changed (a new day) goes on as it began.
type peopleRing struct{ start string }

const (
	ringFrom  = "from|"
	ringUntil = "until|"
)

func (r peopleRing) First() string { return ringFrom + r.start }

func (r peopleRing) After(b string) (string, bool) {
	if start, ok := strings.CutPrefix(b, ringFrom); ok && isSpread(start) {
		return ringUntil + start, true
	}
	return "", false
}

func (peopleRing) Valid(b string) bool {
	start, ok := strings.CutPrefix(b, ringFrom)
	if !ok {
		start, ok = strings.CutPrefix(b, ringUntil)
	}
	return ok && isSpread(start)
}

// query is the People partition's query of bucket b.
func (peopleRing) query(b string) storage.Query {
	q := storage.Query{PartitionKey: peoplePartition}
	if start, ok := strings.CutPrefix(b, ringFrom); ok {
		q.RowKeyFrom = start
	} else {
		q.RowKeyTo, _ = strings.CutPrefix(b, ringUntil)
	}
	return q
}

// shownInPeople reports whether a profile has a row in the People
// partition.
func shownInPeople(p ProfileRow) bool { return p.InPeople && p.Enabled && p.DeletedAt == nil }

// peopleRow is a People partition's row as its callers know it: RowKey
// the memberKey, as in the directory's own rows.
func peopleRow(r DirectoryRow) DirectoryRow {
	if _, key, ok := strings.Cut(r.RowKey, "|"); ok {
		r.RowKey = key
	}
	return r
}

// Seed moves the People rows of before the spread to their keys: while
// the legacy partition has a row (one query a start), it rebuilds the
// directory, which writes the new rows and deletes the old
// (platform.Seeder). The rebuild is the one "web reindex users" runs.
func (s *Service) Seed(ctx context.Context) error {
	page, err := s.directory.Query(ctx, storage.Query{PartitionKey: legacyPeoplePartition, Limit: 1})
	if err != nil || len(page.Entities) == 0 {
		return err
	}
	r, err := s.RebuildDirectory(ctx)
	if err == nil {
		s.log.InfoContext(ctx, "account: People rows moved to their spread keys", "written", r.Written, "removed", r.Removed)
	}
	return err
}

// MinPeopleAge is the youngest age shown in People: its likes and
// matches are for adults.
const MinPeopleAge = MinAge

// Refusals of SetInPeople.
var (
	// ErrPeopleNeedsAge: no birth date, or one of someone under
	// MinPeopleAge (422).
	ErrPeopleNeedsAge = fault.New(http.StatusUnprocessableEntity, "people.error.needs_age", "account: People needs the birth date of an adult")
	// ErrPeoplePrivate: a profile kept to its owner cannot be shown (409).
	ErrPeoplePrivate = fault.New(http.StatusConflict, "people.error.private", "account: a private profile is not shown in People")
	// ErrPeopleBarred: the moderators took the card out of People, and
	// only an admin lets it back (403).
	ErrPeopleBarred = fault.New(http.StatusForbidden, "people.error.barred", "account: taken out of People by the moderators")
)

// SetInPeople shows memberKey's profile in People (on) or takes it out.
// Showing it needs a birth date of an adult (ErrPeopleNeedsAge) and a
// profile others may see (ErrPeoplePrivate), and no take-down by the
// moderators (ErrPeopleBarred).
func (s *Service) SetInPeople(ctx context.Context, memberKey string, on bool) (ProfileRow, error) {
	if on {
		settings, err := s.Settings(ctx, memberKey)
		if err != nil {
			return ProfileRow{}, err
		}
		if settings.ProfileVisibility == VisibilityPrivate {
			return ProfileRow{}, ErrPeoplePrivate
		}
	}
	today := s.now().UTC()
	return s.updateProfile(ctx, memberKey, func(p *ProfileRow) error {
		if on && p.PeopleBarred {
			return ErrPeopleBarred
		}
		if on {
			if age, ok := AgeOn(p.BirthDate, today); !ok || age < MinPeopleAge {
				return ErrPeopleNeedsAge
			}
		}
		if p.InPeople == on {
			return storage.ErrNoChange
		}
		p.InPeople = on
		return nil
	})
}

// BarFromPeople takes memberKey's card out of People for good (barred)
// after the moderators upheld a report of it, so that its owner cannot
// simply show it again; or lets its owner show it again (!barred: they
// choose to, as at first). Already so is no error.
func (s *Service) BarFromPeople(ctx context.Context, memberKey string, barred bool) (ProfileRow, error) {
	return s.updateProfile(ctx, memberKey, func(p *ProfileRow) error {
		if p.PeopleBarred == barred && !(barred && p.InPeople) {
			return storage.ErrNoChange
		}
		p.PeopleBarred = barred
		p.InPeople = p.InPeople && !barred
		return nil
	})
}

// PeopleFilter narrows ListPeople: a gender ("" for any) and an age
// range, counted on Today.
type PeopleFilter struct {
	// From is where the listing starts (a Spread; "" is the beginning);
	// it wraps around to end there.
	From           string
	Gender         string
	MinAge, MaxAge int
	Today          time.Time
	// Near, when set, keeps the people who shared a point inside its box
	// (Point.BoxAround): a coarse cut, which the caller refines with
	// KmTo.
	Near *Box
}

// ListPeople reads one page of the people shown in People, as f narrows
// them, from cursor on (nil: the start), at most limit of them; the next
// cursor is nil at the end. The filters are the query's, so a page is
// short only where the walk's calls ran out (it then goes on from there).
func (s *Service) ListPeople(ctx context.Context, f PeopleFilter, cursor *storage.Cursor, limit int) ([]DirectoryRow, *storage.Cursor, error) {
	if limit < 1 || limit > storage.MaxPageSize {
		limit = 24
	}
	var filters []storage.Filter
	if f.Gender != "" {
		filters = append(filters, storage.Filter{Name: "gender", Op: storage.Eq, Value: f.Gender})
	}
	// Someone is at least MinAge once born on or before today less
	// MinAge years, and at most MaxAge until born a day after today less
	// MaxAge+1 years; birth dates are YYYY-MM-DD, so they compare as text.
	if f.MinAge > 0 {
		filters = append(filters, storage.Filter{Name: "birthDate", Op: storage.Le, Value: f.Today.AddDate(-f.MinAge, 0, 0).Format(birthDayLayout)})
	}
	if f.MaxAge > 0 {
		filters = append(filters, storage.Filter{Name: "birthDate", Op: storage.Gt, Value: f.Today.AddDate(-f.MaxAge-1, 0, 0).Format(birthDayLayout)})
	}
	if b := f.Near; b != nil {
		filters = append(filters,
			storage.Filter{Name: "lat", Op: storage.Ge, Value: b.LatMin},
			storage.Filter{Name: "lat", Op: storage.Le, Value: b.LatMax})
		if !b.LonAll {
			filters = append(filters,
				storage.Filter{Name: "lon", Op: storage.Ge, Value: b.LonMin},
				storage.Filter{Name: "lon", Op: storage.Le, Value: b.LonMax})
		}
	}
	ring := peopleRing{start: f.From}
	if !isSpread(ring.start) {
		ring.start = "0000"
	}
	rows, next, err := s.walk(ctx, ring, ring.query, filters, cursor, limit)
	for i := range rows {
		rows[i] = peopleRow(rows[i])
	}
	return rows, next, err
}

// ErrNotInPeople is a person who is not shown in People (404).
var ErrNotInPeople = fault.New(http.StatusNotFound, "people.error.not_in_people", "account: not in People")

// InPeople is memberKey's row in the People partition: they are shown
// in People and their account is enabled (ErrNotInPeople otherwise).
func (s *Service) InPeople(ctx context.Context, memberKey string) (DirectoryRow, error) {
	row, err := storage.Find[DirectoryRow](ctx, s.directory, peoplePartition, peopleRowKey(memberKey), ErrNotInPeople)
	return peopleRow(row), err
}

// DirectoryEntry is memberKey's directory row, whoever they are
// (ErrNoAccount when there is none): one point read.
func (s *Service) DirectoryEntry(ctx context.Context, memberKey string) (DirectoryRow, error) {
	pk, rk := directoryKey(memberKey)
	return storage.Find[DirectoryRow](ctx, s.directory, pk, rk, ErrNoAccount)
}

// SetAnswers records the questions memberKey answers on their People
// card (the people module's JSON, "" for none), which their directory
// row carries to the cards; no write when they are already.
func (s *Service) SetAnswers(ctx context.Context, memberKey, answers string) error {
	return s.setCardField(ctx, memberKey, func(p *ProfileRow) *string { return &p.Answers }, answers)
}

// SetCardPhoto records the first of memberKey's People photos (the
// people module's blob name, "" for none), which their card leads with;
// no write when it is already.
func (s *Service) SetCardPhoto(ctx context.Context, memberKey, photo string) error {
	return s.setCardField(ctx, memberKey, func(p *ProfileRow) *string { return &p.CardPhoto }, photo)
}

// setCardField sets the profile's field of the People card that field
// points to, which the directory row copies, to v; no write when it
// holds v already.
func (s *Service) setCardField(ctx context.Context, memberKey string, field func(p *ProfileRow) *string, v string) error {
	_, err := s.updateProfile(ctx, memberKey, func(p *ProfileRow) error {
		if f := field(p); *f != v {
			*f = v
			return nil
		}
		return storage.ErrNoChange
	})
	return err
}
