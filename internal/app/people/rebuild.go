package people

import (
	"context"
	"fmt"
	"strings"

	"github.com/harmony/harmony/internal/storage"
)

// RebuildReport counts what Rebuild did.
type RebuildReport struct {
	Likes    int // sent likes read
	Received int // received rows written or corrected
	Removed  int // received rows without their like, deleted
	Matches  int // Matches rows written
	Unliked  int // likes of an ended match, deleted
	Cards    int // card photos set to the first People photo
}

// String is the report as "web reindex people" prints it.
func (r RebuildReport) String() string {
	return fmt.Sprintf("people: %d likes read; fixed %d received rows written, %d removed, %d match rows written, %d likes of ended matches removed, %d card photos",
		r.Likes, r.Received, r.Removed, r.Matches, r.Unliked, r.Cards)
}

// RebuildSubject names the rebuild: web reindex people.
func (s *Service) RebuildSubject() string { return "people" }

// Rebuild is RebuildPeople (platform.Rebuilder).
func (s *Service) Rebuild(ctx context.Context) (fmt.Stringer, error) { return s.RebuildPeople(ctx) }

// RebuildPeople finishes every like, match and unmatch a crash left half
// done, from the truth, the sent likes:
//   - each sent like has its received row, as it is, and no received
//     row is left without its sent like;
//   - two people who like each other have both Matches rows (a match
//     that stands, unless a row of theirs says it was ended);
//   - a match ended on one side is ended on both, and its likes go;
//   - each card leads with its owner's first People photo.
//
// It reads both tables whole, so it is for operators and tests.
func (s *Service) RebuildPeople(ctx context.Context) (RebuildReport, error) {
	var r RebuildReport
	sent := map[[2]string]LikeRow{}
	received := map[[2]string]LikeRow{}
	err := s.likes.QueryAll(ctx, storage.Query{Scan: true}, func(e storage.Entity) error {
		var l LikeRow
		if err := storage.Unmarshal(e, &l); err != nil {
			return err
		}
		if to, ok := strings.CutSuffix(l.PartitionKey, receivedSuffix); ok {
			received[[2]string{l.RowKey, to}] = l
		} else {
			sent[[2]string{l.PartitionKey, l.RowKey}] = l
		}
		return nil
	})
	if err != nil {
		return r, err
	}
	matches, err := storage.All[MatchRow](ctx, s.matches, storage.Query{Scan: true})
	if err != nil {
		return r, err
	}
	side := map[[2]string]MatchRow{}
	for _, m := range matches {
		side[[2]string{m.PartitionKey, m.RowKey}] = m
	}
	r.Likes = len(sent)
	// Ended matches first: both sides ended, their likes gone.
	for k, m := range side {
		if m.Active {
			continue
		}
		back := [2]string{k[1], k[0]}
		if o, ok := side[back]; !ok || o.Active {
			o = m
			o.PartitionKey, o.RowKey, o.ETag = back[0], back[1], ""
			if _, err := storage.Upsert(ctx, s.matches, o); err != nil {
				return r, err
			}
			side[back] = o
			r.Matches++
		}
		for _, l := range [][2]string{k, back} {
			if _, ok := sent[l]; ok {
				if err := s.deleteLike(ctx, l[0], l[1]); err != nil {
					return r, err
				}
				delete(sent, l)
				r.Unliked++
			}
		}
	}
	for k, l := range sent {
		if have, ok := received[k]; !ok || !sameLike(have, l) {
			if err := s.writeReceived(ctx, l); err != nil {
				return r, err
			}
			r.Received++
		}
		back := [2]string{k[1], k[0]}
		if _, mutual := sent[back]; !mutual {
			continue
		}
		if _, ok := side[k]; !ok {
			// No side yet: the like that made it never wrote it. A block
			// either way kept it from matching them then, and still does.
			if _, half := side[back]; !half {
				if hid, err := s.eitherBlocked(ctx, k[0], k[1]); err != nil || hid {
					if err != nil {
						return r, err
					}
					continue
				}
			}
			at := l.CreatedAt
			if o, ok := sent[back]; ok && o.CreatedAt.After(at) {
				at = o.CreatedAt
			}
			if _, err := storage.Upsert(ctx, s.matches, MatchRow{PartitionKey: k[0], RowKey: k[1], CreatedAt: at, Active: true}); err != nil {
				return r, err
			}
			r.Matches++
		}
	}
	for k := range received {
		if _, ok := sent[k]; !ok {
			if err := storage.Forget(ctx, s.likes, receivedPK(k[1]), k[0]); err != nil {
				return r, err
			}
			r.Removed++
		}
	}
	r.Cards, err = s.cardPhotos(ctx)
	return r, err
}

// sameLike reports whether a received row shows its sent like.
func sameLike(a, b LikeRow) bool {
	return a.CreatedAt.Equal(b.CreatedAt) && a.Comment == b.Comment && a.Anonymous == b.Anonymous
}
