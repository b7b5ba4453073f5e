package account

import (
	"context"
	"net/http"
	"time"

	"github.com/harmony/harmony/internal/fault"
	"github.com/harmony/harmony/internal/storage"
)

// Discovery: the people module shows the accounts that chose "Show me in
// People" (ProfileRow.InPeople). The directory's projection keeps, beside
// each account's row, a copy in one partition, "people", for each
// enabled account shown in People, with what Discover's filters and
// cards need: a page of people is one filtered query of that partition,
// not a walk of the 16 directory partitions, nor a read per person.

// peoplePartition is the Users partition of the accounts shown in People
// (RowKey the memberKey); a directory bucket is "user|{h}", so it is no
// bucket.
const peoplePartition = "people"

// shownInPeople reports whether a profile has a row in the People
// partition.
func shownInPeople(p ProfileRow) bool { return p.InPeople && p.Enabled && p.DeletedAt == nil }

// peopleBucket is the People partition as the one bucket of a walk.
type peopleBucket struct{}

func (peopleBucket) First() string               { return peoplePartition }
func (peopleBucket) After(string) (string, bool) { return "", false }
func (peopleBucket) Valid(bucket string) bool    { return bucket == peoplePartition }

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
	return s.walk(ctx, peopleBucket{}, filters, cursor, limit)
}

// ErrNotInPeople is a person who is not shown in People (404).
var ErrNotInPeople = fault.New(http.StatusNotFound, "people.error.not_in_people", "account: not in People")

// InPeople is memberKey's row in the People partition: they are shown
// in People and their account is enabled (ErrNotInPeople otherwise).
func (s *Service) InPeople(ctx context.Context, memberKey string) (DirectoryRow, error) {
	return storage.Find[DirectoryRow](ctx, s.directory, peoplePartition, memberKey, ErrNotInPeople)
}

// DirectoryEntry is memberKey's directory row, whoever they are
// (ErrNoAccount when there is none): one point read.
func (s *Service) DirectoryEntry(ctx context.Context, memberKey string) (DirectoryRow, error) {
	pk, rk := directoryKey(memberKey)
	return storage.Find[DirectoryRow](ctx, s.directory, pk, rk, ErrNoAccount)
}

// SetCardPhoto records the first of memberKey's People photos (the
// people module's blob name, "" for none), which their card leads with.
func (s *Service) SetCardPhoto(ctx context.Context, memberKey, photo string) error {
	_, err := s.updateProfile(ctx, memberKey, func(p *ProfileRow) error {
		if p.CardPhoto == photo {
			return storage.ErrNoChange
		}
		p.CardPhoto = photo
		return nil
	})
	return err
}
