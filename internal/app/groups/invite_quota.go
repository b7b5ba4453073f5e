package groups

import (
	"context"
	"net/http"
	"time"

	"github.com/harmony/harmony/internal/fault"
	"github.com/harmony/harmony/internal/storage"
)

// Invitations carry the group's name and the inviter's name as typed to
// any address, so an owner may send only so many: InviteLimits per hour
// and per day, per inviter, counted in the store so that the limit holds
// across instances. A mail is reserved before it is sent and given back
// when nothing goes out, so only invitations that were sent count.

// ErrInviteLimit is an invitation past the inviter's hourly or daily limit.
var ErrInviteLimit = fault.New(http.StatusTooManyRequests, "groups.error.invite_limit", "groups: too many invitations")

// InviteLimits are how many invitation mails one person may send.
type InviteLimits struct {
	PerHour, PerDay int
}

// DefaultInviteLimits are used unless UseInviteLimits says otherwise.
var DefaultInviteLimits = InviteLimits{PerHour: 20, PerDay: 100}

const inviteQuotaTable = "InviteQuota"

// inviteQuotaRow counts one inviter's invitation mails on one UTC day,
// with the count of the current hour, in table InviteQuota.
type inviteQuotaRow struct {
	PartitionKey string `table:"PartitionKey"` // the inviter's memberKey
	RowKey       string `table:"RowKey"`       // d|YYYY-MM-DD
	ETag         string `table:"ETag"`
	Day          int64  `table:"day"`
	Hour         int64  `table:"hour"` // the hour (0-23) HourCount counts
	HourCount    int64  `table:"hourCount"`
}

// inviteQuotaKey is the InviteQuota key of memberKey's day at t.
func inviteQuotaKey(memberKey string, t time.Time) (pk, rk string) {
	return memberKey, "d|" + t.UTC().Format(time.DateOnly)
}

// UseInviteLimits sets the invitation limits; call it while wiring.
func (s *Service) UseInviteLimits(l InviteLimits) { s.inviteLimits = l }

// reserveInvite counts one invitation mail for memberKey now, or refuses
// with ErrInviteLimit. The returned release gives the mail back when it
// is not sent after all.
func (s *Service) reserveInvite(ctx context.Context, memberKey string) (release func(), err error) {
	now := s.now().UTC()
	err = s.changeInviteQuota(ctx, memberKey, now, func(q *inviteQuotaRow) error {
		if q.Day >= int64(s.inviteLimits.PerDay) || q.HourCount >= int64(s.inviteLimits.PerHour) {
			return ErrInviteLimit
		}
		q.Day++
		q.HourCount++
		return nil
	})
	if err != nil {
		return nil, err
	}
	return func() {
		// The request may be ending; the give-back must still land.
		ctx := context.WithoutCancel(ctx)
		err := s.changeInviteQuota(ctx, memberKey, now, func(q *inviteQuotaRow) error {
			q.Day = max(q.Day-1, 0)
			if q.Hour == int64(now.Hour()) {
				q.HourCount = max(q.HourCount-1, 0)
			}
			return nil
		})
		if err != nil {
			s.log.WarnContext(ctx, "groups: an unsent invitation stays counted", "member", memberKey, "err", err)
		}
	}, nil
}

// changeInviteQuota applies change to memberKey's quota row of the day of
// at, at its ETag, starting the hour's count afresh in a new hour.
func (s *Service) changeInviteQuota(ctx context.Context, memberKey string, at time.Time, change func(*inviteQuotaRow) error) error {
	pk, rk := inviteQuotaKey(memberKey, at)
	_, err := storage.Modify(ctx, s.inviteQuota, pk, rk, func(q *inviteQuotaRow, exists bool) error {
		if !exists || q.Hour != int64(at.Hour()) {
			q.Hour, q.HourCount = int64(at.Hour()), 0
		}
		return change(q)
	})
	return err
}
