package auth

import (
	"context"
	"errors"
	"time"

	"github.com/harmony/harmony/internal/jobs"
	"github.com/harmony/harmony/internal/storage"
)

// PurgeSessionsEvery is how often the session purge job runs.
const PurgeSessionsEvery = time.Hour

// maxSessionPurge bounds one run's deletions, so a backlog (the first run
// on an old store) is worked off over several runs instead of one long one.
const maxSessionPurge = 1000

// errPurgeFull stops the scan once a run has found enough rows.
var errPurgeFull = errors.New("auth: purge batch full")

// PurgeSessionsJob is the hourly job that deletes expired session rows.
// Without it a session that is never used again (a cleared browser, a lost
// phone) keeps its row until its owner opens the sessions page.
func (s *Service) PurgeSessionsJob() jobs.Job {
	return jobs.Job{Name: "auth-session-purge", Every: PurgeSessionsEvery, Run: func(ctx context.Context) error {
		_, err := s.PurgeExpiredSessions(ctx)
		return err
	}}
}

// PurgeExpiredSessions deletes up to maxSessionPurge session rows past
// their idle or absolute end, and returns how many it deleted. The row is
// the whole session (the member's partition is its only listing), so
// nothing else points at it. Each delete is conditional on the ETag read,
// so a row rewritten since (a sign-in racing the scan) is left alone; the
// next run sees it again.
func (s *Service) PurgeExpiredSessions(ctx context.Context) (int, error) {
	now := s.now()
	var due []*sessionRow
	err := s.sessions.QueryAll(ctx, storage.Query{Scan: true}, func(e storage.Entity) error {
		var r sessionRow
		if err := storage.Unmarshal(e, &r); err != nil {
			return err
		}
		if s.expired(&r, now) {
			due = append(due, &r)
		}
		if len(due) == maxSessionPurge {
			return errPurgeFull
		}
		return nil
	})
	if err != nil && !errors.Is(err, errPurgeFull) {
		return 0, err
	}
	deleted := 0
	for _, r := range due {
		if err := ctx.Err(); err != nil {
			return deleted, err
		}
		pk, rk := sessionKey(r.MemberKey, r.ID)
		err := s.sessions.Delete(ctx, pk, rk, r.ETag)
		switch {
		case err == nil:
			deleted++
		case errors.Is(err, storage.ErrNotFound), errors.Is(err, storage.ErrPrecondition):
			// Gone already, or touched since: not this run's to delete.
		default:
			return deleted, err
		}
	}
	if deleted > 0 {
		s.log.InfoContext(ctx, "expired sessions purged", "count", deleted)
	}
	return deleted, nil
}
