package people

import (
	"cmp"
	"context"
	"errors"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/harmony/harmony/internal/app/account"
	"github.com/harmony/harmony/internal/storage"
)

// Where the module's pages are.
const (
	DiscoverURL = "/people"
	LikesURL    = "/people/likes"
	MatchesURL  = "/people/matches"
)

// PageSize is how many people a page of Discover shows.
const PageSize = 24

// Person is someone as a list shows them to the viewer.
type Person struct {
	account.DirectoryRow
	// Age is on the viewer's today; 0 when unknown.
	Age int
	// Mine is the viewer's like of them, Theirs theirs of the viewer
	// (shown only when it is not anonymous), nil for none.
	Mine, Theirs *LikeRow
	// Matched: they match; At is when (the match, or the like a list is
	// of).
	Matched bool
	At      time.Time
	// Km is how far they are from the viewer, when both shared a point
	// (Located).
	Km      int
	Located bool
	// km is Km before rounding.
	km float64
}

// Standing is the viewer's likes and matches, read once for a page: a
// query of each partition.
type Standing struct {
	Sent     map[string]LikeRow
	Received map[string]LikeRow
	Matches  map[string]MatchRow
	Blocked  map[string]bool
	// Skipped are whom the viewer skipped, with when: read by the pages
	// that need them (Discover, the skipped list), nil elsewhere.
	Skipped map[string]time.Time
	// Near is the point the viewer shared, nil for none: every list then
	// says how far each person who shared theirs is.
	Near *account.Point
}

// StandingOf reads member's likes, received likes, matches and blocks.
func (s *Service) StandingOf(ctx context.Context, member string) (Standing, error) {
	st := Standing{Sent: map[string]LikeRow{}, Received: map[string]LikeRow{}, Matches: map[string]MatchRow{}, Blocked: map[string]bool{}}
	sent, err := storage.All[LikeRow](ctx, s.likes, storage.Query{PartitionKey: member})
	if err != nil {
		return Standing{}, err
	}
	for _, r := range sent {
		st.Sent[r.RowKey] = r
	}
	received, err := storage.All[LikeRow](ctx, s.likes, storage.Query{PartitionKey: receivedPK(member)})
	if err != nil {
		return Standing{}, err
	}
	for _, r := range received {
		st.Received[r.RowKey] = r
	}
	matches, err := storage.All[MatchRow](ctx, s.matches, storage.Query{PartitionKey: member})
	if err != nil {
		return Standing{}, err
	}
	for _, r := range matches {
		st.Matches[r.RowKey] = r
	}
	blocked, err := s.blockedBy(ctx, member)
	for k := range blocked {
		st.Blocked[k] = true
	}
	return st, err
}

// person is row as the viewer with standing st sees them on today.
func (st Standing) person(row account.DirectoryRow, today time.Time) Person {
	p := Person{DirectoryRow: row}
	p.Age, _ = account.AgeOn(row.BirthDate, today)
	key := row.RowKey
	if l, ok := st.Sent[key]; ok {
		p.Mine = &l
	}
	m, matched := st.Matches[key]
	p.Matched = matched && m.Active
	if l, ok := st.Received[key]; ok && (!l.Anonymous || p.Matched) {
		p.Theirs = &l
	}
	if p.Matched {
		p.At = m.CreatedAt
	}
	if pt := row.Point(); st.Near != nil && pt != nil {
		p.km = st.Near.KmTo(*pt)
		p.Km, p.Located = int(math.Round(p.km)), true
	}
	return p
}

// hidden reports whether a person stays out of the viewer's lists: they
// blocked them, or one of them ended their match.
func (st Standing) hidden(key string) bool {
	m, ok := st.Matches[key]
	return st.Blocked[key] || ok && !m.Active
}

// Filter is Discover's narrowing: a gender (account.ShowMe values) and
// an age range.
type Filter struct {
	ShowMe         string
	MinAge, MaxAge int
	// WithinKm keeps the people who shared a point within that many
	// kilometres of Near, the viewer's (0, or Near nil: anywhere).
	WithinKm int
	Near     *account.Point
}

// showGender is the profile gender a ShowMe value shows, "" for all.
var showGender = map[string]string{account.ShowWomen: "female", account.ShowMen: "male"}

// Discovered is a page of Discover.
type Discovered struct {
	People []Person
	Next   *storage.Cursor
	// Skipped is how many people the viewer skipped.
	Skipped int
}

// dayStart is where viewer's Discover begins on day (UTC): a place of
// their own among the People rows each day, so that nobody is always
// first, and someone who looks again the next day finds others first.
func dayStart(viewer string, day time.Time) string {
	return account.Spread(viewer + "|" + day.Format(time.DateOnly))
}

// shuffle puts a page of viewer's Discover on day in an order of its
// own. The page is the rows after dayStart, and a start lands more often
// in a wide gap between two people's keys than in a narrow one: in key
// order, whoever follows a wide gap would lead the page more often than
// others. Within the page each person's place is a hash of the viewer,
// the day and them, so each leads as often as any other; the page's
// people, and so the paging, stay as the key order cut them.
func shuffle(people []Person, viewer string, day time.Time) {
	seed := viewer + "|" + day.Format(time.DateOnly) + "|"
	place := make(map[string]string, len(people))
	for _, p := range people {
		place[p.RowKey] = account.Spread(seed + p.RowKey)
	}
	slices.SortFunc(people, func(a, b Person) int { return cmp.Compare(place[a.RowKey], place[b.RowKey]) })
}

// Discover is one page of the people in People as f narrows them, from
// cursor on, without the viewer, those they keep out (hidden) and those
// they skipped (read with one query unless st holds them).
func (s *Service) Discover(ctx context.Context, viewer string, f Filter, st Standing, cursor *storage.Cursor) (Discovered, error) {
	today := s.now().UTC()
	pf := account.PeopleFilter{Gender: showGender[f.ShowMe], MinAge: f.MinAge, MaxAge: f.MaxAge, Today: today, From: dayStart(viewer, today)}
	if f.Near != nil && f.WithinKm > 0 {
		box := f.Near.BoxAround(float64(f.WithinKm))
		pf.Near = &box
	}
	rows, next, err := s.accounts.ListPeople(ctx, pf, cursor, PageSize)
	if err != nil {
		return Discovered{}, err
	}
	if st.Skipped == nil {
		if st.Skipped, err = s.skipped(ctx, viewer); err != nil {
			return Discovered{}, err
		}
	}
	out := Discovered{Next: next, Skipped: len(st.Skipped)}
	for _, r := range rows {
		_, skipped := st.Skipped[r.RowKey]
		if r.RowKey == viewer || st.hidden(r.RowKey) || skipped {
			continue
		}
		p := st.person(r, today)
		if pf.Near != nil && p.Located && p.km > float64(f.WithinKm) {
			continue // in the box's corner, farther than asked
		}
		out.People = append(out.People, p)
	}
	shuffle(out.People, viewer, today)
	return out, nil
}

// Likes is the viewer's "Likes you" and "You liked": the likes not (yet)
// returned, newest first, and how many of those received are anonymous.
type Likes struct {
	You       []Person
	Anonymous int
	Sent      []Person
}

// MaxListed bounds each list of a likes page, newest first.
const MaxListed = 200

// other is someone a list is of: their key, and when (the like, or
// the match).
type other struct {
	key string
	at  time.Time
}

// open are the likes of likes (the viewer's sent or received ones) that
// are still open: not of someone hidden, nor of a match.
func (st Standing) open(likes map[string]LikeRow) []LikeRow {
	var out []LikeRow
	for key, l := range likes {
		if !st.hidden(key) && !st.Matches[key].Active {
			out = append(out, l)
		}
	}
	return out
}

// standing are the viewer's matches that stand, without whom they
// blocked.
func (st Standing) standing() []other {
	var out []other
	for key, m := range st.Matches {
		if m.Active && !st.Blocked[key] {
			out = append(out, other{key, m.CreatedAt})
		}
	}
	return out
}

// likesOf are likes as a list's people.
func likesOf(likes []LikeRow) []other {
	out := make([]other, 0, len(likes))
	for _, l := range likes {
		out = append(out, other{l.RowKey, l.CreatedAt})
	}
	return out
}

// LikesOf lists the viewer's open likes both ways: those of matched,
// hidden or gone people left out, the people read from the directory.
func (s *Service) LikesOf(ctx context.Context, viewer string, st Standing) (Likes, error) {
	var out Likes
	open := st.open(st.Received)
	received := slices.DeleteFunc(slices.Clone(open), func(l LikeRow) bool { return l.Anonymous })
	out.Anonymous = len(open) - len(received)
	var err error
	if out.You, err = s.listed(ctx, st, likesOf(received), s.accounts.InPeople); err != nil {
		return Likes{}, err
	}
	out.Sent, err = s.listed(ctx, st, likesOf(st.open(st.Sent)), s.accounts.InPeople)
	return out, err
}

// Matches are the viewer's matches that stand, newest first. A match
// stands when either leaves People: it is theirs to end.
func (s *Service) Matches(ctx context.Context, viewer string, st Standing) ([]Person, error) {
	return s.listed(ctx, st, st.standing(), s.enabled)
}

// listed reads, with read (at most eight at once), the directory rows of
// the newest MaxListed of people, newest first, and leaves out those
// read finds gone.
func (s *Service) listed(ctx context.Context, st Standing, people []other, read func(context.Context, string) (account.DirectoryRow, error)) ([]Person, error) {
	slices.SortFunc(people, func(a, b other) int { return cmp.Or(b.at.Compare(a.at), strings.Compare(a.key, b.key)) })
	people = people[:min(len(people), MaxListed)]
	rows := make([]*account.DirectoryRow, len(people))
	err := storage.Each(ctx, len(people), 8, func(ctx context.Context, i int) error {
		r, err := read(ctx, people[i].key)
		if err == nil {
			rows[i] = &r
		} else if errors.Is(err, account.ErrNotInPeople) || errors.Is(err, storage.ErrNotFound) {
			err = nil
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	today := s.now().UTC()
	out := make([]Person, 0, len(people))
	for i, r := range rows {
		if r != nil {
			p := st.person(*r, today)
			p.At = people[i].at
			out = append(out, p)
		}
	}
	return out, nil
}

// enabled is memberKey's directory row while their account is enabled
// (account.ErrNotInPeople otherwise).
func (s *Service) enabled(ctx context.Context, memberKey string) (account.DirectoryRow, error) {
	r, err := s.accounts.DirectoryEntry(ctx, memberKey)
	if err == nil && !r.Enabled {
		return account.DirectoryRow{}, account.ErrNotInPeople
	}
	return r, err
}
