package account

import (
	"context"
	"fmt"
	"net/http"
	"strings"

	"github.com/harmony/harmony/internal/fault"
	"github.com/harmony/harmony/internal/storage"
)

// directoryBuckets are the 16 Users partitions, "user|0" to "user|f", read
// in that order.
type directoryBuckets struct{}

const hexDigits = "0123456789abcdef"

func (directoryBuckets) First() string { return directoryPrefix + "0" }

func (b directoryBuckets) After(bucket string) (string, bool) {
	if !b.Valid(bucket) {
		return "", false
	}
	i := strings.IndexByte(hexDigits, bucket[len(directoryPrefix)])
	if i+1 == len(hexDigits) {
		return "", false
	}
	return directoryPrefix + hexDigits[i+1:i+2], true
}

func (directoryBuckets) Valid(bucket string) bool {
	digit, ok := strings.CutPrefix(bucket, directoryPrefix)
	return ok && len(digit) == 1 && strings.Contains(hexDigits, digit)
}

// CountAdmins counts the enabled accounts that hold the admin role (see
// Admins).
func (s *Service) CountAdmins(ctx context.Context) (int, error) {
	rows, err := s.Admins(ctx)
	return len(rows), err
}

// Admins are the enabled accounts that hold the admin role, from the
// Users directory: a filtered query of each of its 16 partitions. Those
// ADMIN_EMAILS names are admins whatever their role, and are not among
// them unless they hold it.
func (s *Service) Admins(ctx context.Context) ([]DirectoryRow, error) {
	var out []DirectoryRow
	for i := range len(hexDigits) {
		rows, err := storage.All[DirectoryRow](ctx, s.directory, storage.Query{
			PartitionKey: directoryPrefix + hexDigits[i:i+1],
			Filters:      []storage.Filter{{Name: "role", Op: storage.Eq, Value: RoleAdmin}, {Name: "enabled", Op: storage.Eq, Value: true}},
		})
		if err != nil {
			return nil, err
		}
		out = append(out, rows...)
	}
	return out, nil
}

// ListUsers reads one page of the directory, from cursor on (nil: the
// start), with at most limit people. The next cursor is nil at the end.
// The order is by bucket, then memberKey: stable, so pages neither repeat
// nor skip anyone, though it is not alphabetical.
func (s *Service) ListUsers(ctx context.Context, cursor *storage.Cursor, limit int) ([]DirectoryRow, *storage.Cursor, error) {
	if limit < 1 || limit > storage.MaxPageSize {
		limit = 50
	}
	return s.walk(ctx, directoryBuckets{}, partition, nil, cursor, limit)
}

// partition is the query of a bucket that is a partition.
func partition(bucket string) storage.Query { return storage.Query{PartitionKey: bucket} }

// walk reads one page of the directory rows of buckets that match
// filters, bucket by bucket (query says which rows a bucket is), from
// cursor on.
func (s *Service) walk(ctx context.Context, buckets storage.Buckets, query func(bucket string) storage.Query, filters []storage.Filter, cursor *storage.Cursor, limit int) ([]DirectoryRow, *storage.Cursor, error) {
	walk := storage.Walk{
		Buckets:  buckets,
		Limit:    limit,
		MaxCalls: 20,
		Fetch: func(ctx context.Context, bucket string, cont *storage.Continuation, n int) (storage.Page, error) {
			q := query(bucket)
			q.Filters, q.Limit, q.Continuation = filters, n, cont
			return s.directory.Query(ctx, q)
		},
	}
	entities, next, err := walk.Run(ctx, cursor)
	if err != nil {
		return nil, nil, err
	}
	rows := make([]DirectoryRow, 0, len(entities))
	for _, e := range entities {
		var row DirectoryRow
		if err := storage.Unmarshal(e, &row); err != nil {
			return nil, nil, err
		}
		rows = append(rows, row)
	}
	return rows, next, nil
}

// RebuildReport counts what RebuildDirectory did.
type RebuildReport struct {
	Profiles int // profiles read
	Written  int // directory rows added or corrected
	Removed  int // directory rows without a profile, deleted
}

// String is the report as "web reindex users" prints it.
func (r RebuildReport) String() string {
	return fmt.Sprintf("users: %d profiles read; fixed %d directory rows written, %d removed", r.Profiles, r.Written, r.Removed)
}

// RebuildDirectory is the repair path for the Users directory: the
// projection's rebuild recomputes every row from UserProfiles, writes the
// missing and stale ones, and deletes rows whose profile is gone. It
// reads both tables whole, so it is for operators and tests, not for
// requests.
func (s *Service) RebuildDirectory(ctx context.Context) (RebuildReport, error) {
	r, err := s.listing.Rebuild(ctx)
	return RebuildReport{Profiles: r.Canonical, Written: r.Written, Removed: r.Removed}, err
}

// RepairDirectory rewrites one account's directory row from its profile:
// the repair of a profile write that stopped before its directory row.
func (s *Service) RepairDirectory(ctx context.Context, memberKey string) error {
	pk, rk := profileKey(memberKey)
	return s.listing.Repair(ctx, pk, rk)
}

// SetEnabled enables or disables an account. Disabling ends every session
// of the account at once; auth refuses its next sign-in.
func (s *Service) SetEnabled(ctx context.Context, memberKey string, enabled bool) (ProfileRow, error) {
	p, err := s.updateProfile(ctx, memberKey, func(p *ProfileRow) error {
		p.Enabled = enabled
		return nil
	})
	if err != nil {
		return ProfileRow{}, err
	}
	if !enabled {
		return p, s.sessions.RevokeAllSessions(ctx, memberKey)
	}
	return p, nil
}

// SetRole grants role (RoleAdmin, RoleOrganizer) or, with granted
// false, takes it back; taking back a role the account does not hold
// changes nothing. The account's sessions follow at once. A revoked role
// that did not reach the sessions is an error, so the admin can retry: a
// session must not keep rights it lost.
//
// Roles are ranked (an admin has every organizer's rights): granting one
// below the account's own is ErrRoleBelow, so no grant takes rights away.
func (s *Service) SetRole(ctx context.Context, memberKey, role string, granted bool) (ProfileRow, error) {
	p, err := s.updateProfile(ctx, memberKey, func(p *ProfileRow) error {
		switch {
		case granted && roleRank(role) < roleRank(p.Role):
			return ErrRoleBelow
		case granted:
			p.Role = role
		case p.Role == role:
			p.Role = ""
		}
		return nil
	})
	if err != nil {
		return ProfileRow{}, err
	}
	return p, s.refreshSessions(ctx, memberKey, p)
}

// ErrRoleBelow refuses granting a role below the one the account holds
// (organizer to an admin) (409).
var ErrRoleBelow = fault.New(http.StatusConflict, "account.error.role_below", "account: the account holds a higher role")

// roleRank orders the roles: none, organizer, admin.
func roleRank(role string) int {
	switch role {
	case RoleAdmin:
		return 2
	case RoleOrganizer:
		return 1
	}
	return 0
}

// RebuildSubject and Rebuild make the Users directory's repair one of the
// app's rebuilds (platform.Rebuilder): web reindex users.
func (s *Service) RebuildSubject() string { return "users" }

// Rebuild is RebuildDirectory.
func (s *Service) Rebuild(ctx context.Context) (fmt.Stringer, error) { return s.RebuildDirectory(ctx) }
