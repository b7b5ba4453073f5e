package account

import (
	"context"
	"sort"
	"time"

	"github.com/harmony/harmony/internal/auth"
)

// SessionList is the sessions page: the member's signed-in devices, the
// current one first, then the most recently seen, and the zone the member
// reads times in.
type SessionList struct {
	Sessions []auth.SessionInfo
	Zone     *time.Location
}

// ListSessions lists memberKey's sessions; currentID marks the one in hand.
func (s *Service) ListSessions(ctx context.Context, memberKey, currentID string) (SessionList, error) {
	list, err := s.sessions.ListSessions(ctx, memberKey, currentID)
	if err != nil {
		return SessionList{}, err
	}
	sort.SliceStable(list, func(i, j int) bool {
		if list[i].Current != list[j].Current {
			return list[i].Current
		}
		return list[i].LastSeenAt.After(list[j].LastSeenAt)
	})
	zone := time.UTC
	if p, err := s.Profile(ctx, memberKey); err == nil && p.Timezone != "" {
		if loc, err := time.LoadLocation(p.Timezone); err == nil {
			zone = loc
		}
	}
	return SessionList{Sessions: list, Zone: zone}, nil
}

// RevokeSession ends one of memberKey's sessions.
func (s *Service) RevokeSession(ctx context.Context, memberKey, sessionID string) error {
	return s.sessions.RevokeSession(ctx, memberKey, sessionID)
}

// RevokeAllSessions ends every session of memberKey ("sign out
// everywhere").
func (s *Service) RevokeAllSessions(ctx context.Context, memberKey string) error {
	return s.sessions.RevokeAllSessions(ctx, memberKey)
}
