package people

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/harmony/harmony/internal/app/account"
	"github.com/harmony/harmony/internal/memberdata"
	"github.com/harmony/harmony/internal/storage"
)

// A member's data in People is all theirs, and goes with their account:
// their photos (rows and files), the likes they gave and got (both rows
// of each), their matches (both sides: the other loses the match, as on
// Hinge), their skips and others' skips of them, and their day counters.
// Nothing of theirs stays for others. The notices that told others of a
// like or a match keep the name they were posted with (the inbox drops
// what holds their key).

// exportedLike is a like (or a skip) as the archive has it: the other
// person by name only.
type exportedLike struct {
	Person  string `json:"person"`
	Comment string `json:"comment,omitempty"`
	// About is the question of the card the like was about; Answer the
	// member's own answer a like received was about (a like given keeps
	// the other person's words out); Photo says it was of one photo.
	About  string    `json:"about_question,omitempty"`
	Answer string    `json:"about_answer,omitempty"`
	Photo  bool      `json:"about_photo,omitempty"`
	At     time.Time `json:"at"`
}

// exportedAbout is what a like was about, as the archive says it (the
// answer only for a like received).
func exportedAbout(l exportedLike, r LikeRow, received bool) exportedLike {
	if strings.HasPrefix(r.About, photoAbout) {
		l.Photo = true
		return l
	}
	l.About = r.About
	if received {
		l.Answer = r.AboutText
	}
	return l
}

type exportedMatch struct {
	Person  string     `json:"person"`
	Since   time.Time  `json:"since"`
	EndedAt *time.Time `json:"ended_at,omitempty"`
}

type exportedPeople struct {
	LikesGiven    []exportedLike  `json:"likes_given"`
	LikesReceived []exportedLike  `json:"likes_received"`
	Matches       []exportedMatch `json:"matches"`
	Skipped       []exportedLike  `json:"skipped"`
	Photos        []string        `json:"photos"`
}

// ExportMember writes m's People data: people/people.json (likes given
// and received, matches and skips, each other person by name; an
// anonymous like received names nobody) and their photos as
// people/photos/{n}.jpg, in their order (memberdata.Exporter).
func (s *Service) ExportMember(ctx context.Context, m memberdata.Member, to memberdata.Archive) error {
	out := exportedPeople{LikesGiven: []exportedLike{}, LikesReceived: []exportedLike{}, Matches: []exportedMatch{}, Skipped: []exportedLike{}, Photos: []string{}}
	sent, err := storage.All[LikeRow](ctx, s.likes, storage.Query{PartitionKey: m.Key})
	if err != nil {
		return err
	}
	for _, r := range sent {
		out.LikesGiven = append(out.LikesGiven, exportedAbout(exportedLike{Person: s.nameOf(ctx, r.RowKey), Comment: r.Comment, At: r.CreatedAt}, r, false))
	}
	received, err := storage.All[LikeRow](ctx, s.likes, storage.Query{PartitionKey: receivedPK(m.Key)})
	if err != nil {
		return err
	}
	for _, r := range received {
		l := exportedAbout(exportedLike{Comment: r.Comment, At: r.CreatedAt}, r, true)
		if !r.Anonymous {
			l.Person = s.nameOf(ctx, r.RowKey)
		}
		out.LikesReceived = append(out.LikesReceived, l)
	}
	matches, err := storage.All[MatchRow](ctx, s.matches, storage.Query{PartitionKey: m.Key})
	if err != nil {
		return err
	}
	for _, r := range matches {
		out.Matches = append(out.Matches, exportedMatch{Person: s.nameOf(ctx, r.RowKey), Since: r.CreatedAt, EndedAt: r.EndedAt})
	}
	skipped, err := storage.All[SkipRow](ctx, s.skips, storage.Query{PartitionKey: m.Key})
	if err != nil {
		return err
	}
	for _, r := range skipped {
		out.Skipped = append(out.Skipped, exportedLike{Person: s.nameOf(ctx, r.RowKey), At: r.At})
	}
	photos, err := s.Photos(ctx, m.Key)
	if err != nil {
		return err
	}
	for i, p := range photos {
		name := fmt.Sprintf("people/photos/%d.jpg", i+1)
		blob, err := s.photos.Pictures.Container.Get(ctx, p.Key)
		if errors.Is(err, storage.ErrNotFound) {
			continue
		}
		if err != nil {
			return err
		}
		if err := to.File(name, bytes.NewReader(blob.Data)); err != nil {
			return err
		}
		out.Photos = append(out.Photos, name)
	}
	return to.JSON("people/people.json", out)
}

// nameOf is another member's name as the directory has it ("" for an
// account gone).
func (s *Service) nameOf(ctx context.Context, memberKey string) string {
	row, err := s.accounts.DirectoryEntry(ctx, memberKey)
	if err != nil {
		return ""
	}
	return row.DisplayName
}

// ForgetMember deletes everything People keeps of m (memberdata.
// Forgetter). Each step deletes the row outside m's partitions before
// the row in them that leads to it (the liked person's received row
// before m's sent like, the liker's sent like before m's received row,
// the other's side of a match before m's, the photos' files before
// their rows), so a run cut short leaves rows in m's own partitions,
// which the next run reads again; a second run finds nothing.
func (s *Service) ForgetMember(ctx context.Context, m memberdata.Member) error {
	if m.Key == "" {
		return errors.New("people: forget of no member")
	}
	if err := s.photos.DeleteAll(ctx, m.Key); err != nil {
		return err
	}
	// The card shows no photo of theirs (the profile may be gone).
	if err := s.setCard(ctx, m.Key, nil); err != nil && !errors.Is(err, account.ErrNoAccount) {
		return err
	}
	sent, err := storage.All[LikeRow](ctx, s.likes, storage.Query{PartitionKey: m.Key, Select: []string{"RowKey"}})
	if err != nil {
		return err
	}
	for _, r := range sent {
		if err := s.deleteLike(ctx, m.Key, r.RowKey); err != nil {
			return err
		}
	}
	received, err := storage.All[LikeRow](ctx, s.likes, storage.Query{PartitionKey: receivedPK(m.Key), Select: []string{"RowKey"}})
	if err != nil {
		return err
	}
	for _, r := range received {
		// The liker's row first: the received row in m's partition is
		// what a run resumed after a failure finds the like by.
		for _, k := range [][2]string{{r.RowKey, m.Key}, {receivedPK(m.Key), r.RowKey}} {
			if err := storage.Forget(ctx, s.likes, k[0], k[1]); err != nil {
				return err
			}
		}
	}
	matches, err := storage.All[MatchRow](ctx, s.matches, storage.Query{PartitionKey: m.Key, Select: []string{"RowKey"}})
	if err != nil {
		return err
	}
	for _, r := range matches {
		for _, side := range [][2]string{{r.RowKey, m.Key}, {m.Key, r.RowKey}} {
			if err := storage.Forget(ctx, s.matches, side[0], side[1]); err != nil {
				return err
			}
		}
	}
	if err := s.forgetSkips(ctx, m.Key); err != nil {
		return err
	}
	for _, key := range []string{m.Key, placeQuotaKey(m.Key)} {
		if err := storage.Forget(ctx, s.quota, key, "w"); err != nil {
			return err
		}
	}
	return nil
}

// forgetSkips deletes memberKey's skips and everyone's skips of them.
// Nobody's skips are indexed by whom they skipped, so the latter is a
// scan of PeopleSkips for the row key (at most 1,000 a person): rare,
// and only in an account's deletion.
func (s *Service) forgetSkips(ctx context.Context, memberKey string) error {
	if err := storage.DeletePartition(ctx, s.skips, memberKey); err != nil {
		return err
	}
	q := storage.Query{Scan: true, Filters: []storage.Filter{{Name: "RowKey", Op: storage.Eq, Value: memberKey}}, Select: []string{"RowKey"}}
	return s.skips.QueryAll(ctx, q, func(e storage.Entity) error {
		return storage.Forget(ctx, s.skips, e.PartitionKey, e.RowKey)
	})
}
