package people

import (
	"cmp"
	"context"
	"errors"
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
}

// Standing is the viewer's likes and matches, read once for a page: a
// query of each partition.
type Standing struct {
	Sent     map[string]LikeRow
	Received map[string]LikeRow
	Matches  map[string]MatchRow
	Blocked  map[string]bool
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
}

// showGender is the profile gender a ShowMe value shows, "" for all.
var showGender = map[string]string{account.ShowWomen: "female", account.ShowMen: "male"}

// Discovered is a page of Discover.
type Discovered struct {
	People []Person
	Next   *storage.Cursor
}

// Discover is one page of the people in People as f narrows them, from
// cursor on, without the viewer and those they keep out (hidden).
func (s *Service) Discover(ctx context.Context, viewer string, f Filter, st Standing, cursor *storage.Cursor) (Discovered, error) {
	today := s.now().UTC()
	rows, next, err := s.accounts.ListPeople(ctx, account.PeopleFilter{Gender: showGender[f.ShowMe], MinAge: f.MinAge, MaxAge: f.MaxAge, Today: today}, cursor, PageSize)
	if err != nil {
		return Discovered{}, err
	}
	out := Discovered{Next: next}
	for _, r := range rows {
		if r.RowKey == viewer || st.hidden(r.RowKey) {
			continue
		}
		out.People = append(out.People, st.person(r, today))
	}
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

// LikesOf lists the viewer's open likes both ways: those of matched,
// hidden or gone people left out, the people read from the directory.
func (s *Service) LikesOf(ctx context.Context, viewer string, st Standing) (Likes, error) {
	var out Likes
	var received, sent []LikeRow
	for key, l := range st.Received {
		switch {
		case st.hidden(key) || st.Matches[key].Active:
		case l.Anonymous:
			out.Anonymous++
		default:
			received = append(received, l)
		}
	}
	for key, l := range st.Sent {
		if !st.hidden(key) && !st.Matches[key].Active {
			sent = append(sent, l)
		}
	}
	var err error
	if out.You, err = listed(ctx, s, st, newest(received), s.accounts.InPeople); err != nil {
		return Likes{}, err
	}
	out.Sent, err = listed(ctx, s, st, newest(sent), s.accounts.InPeople)
	return out, err
}

// Matches are the viewer's matches that stand, newest first.
func (s *Service) Matches(ctx context.Context, viewer string, st Standing) ([]Person, error) {
	var rows []MatchRow
	for key, m := range st.Matches {
		if m.Active && !st.Blocked[key] {
			rows = append(rows, m)
		}
	}
	slices.SortFunc(rows, func(a, b MatchRow) int {
		return cmp.Or(b.CreatedAt.Compare(a.CreatedAt), strings.Compare(a.RowKey, b.RowKey))
	})
	// A match stands when either leaves People: it is theirs to end.
	return listed(ctx, s, st, rows[:min(len(rows), MaxListed)], s.enabled)
}

// newest sorts likes newest first and keeps MaxListed.
func newest(likes []LikeRow) []LikeRow {
	slices.SortFunc(likes, func(a, b LikeRow) int {
		return cmp.Or(b.CreatedAt.Compare(a.CreatedAt), strings.Compare(a.RowKey, b.RowKey))
	})
	return likes[:min(len(likes), MaxListed)]
}

// row is a like's or a match's, whose other person is its RowKey.
type row interface{ LikeRow | MatchRow }

// listed reads the directory rows of the people items are of, with
// read (at most eight at once), and leaves out those read finds gone.
func listed[T row](ctx context.Context, s *Service, st Standing, items []T, read func(context.Context, string) (account.DirectoryRow, error)) ([]Person, error) {
	rows := make([]*account.DirectoryRow, len(items))
	err := storage.Each(ctx, len(items), 8, func(ctx context.Context, i int) error {
		r, err := read(ctx, otherOf(items[i]))
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
	out := make([]Person, 0, len(items))
	for i, r := range rows {
		if r == nil {
			continue
		}
		p := st.person(*r, today)
		if l, ok := any(items[i]).(LikeRow); ok {
			p.At = l.CreatedAt
		}
		out = append(out, p)
	}
	return out, nil
}

// otherOf is the other person of a like's or a match's row.
func otherOf[T row](v T) string {
	switch r := any(v).(type) {
	case LikeRow:
		return r.RowKey
	case MatchRow:
		return r.RowKey
	}
	return ""
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
