package groups

import (
	"context"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/harmony/harmony/internal/auth"
	"github.com/harmony/harmony/internal/storage"
	"github.com/harmony/harmony/internal/storage/projection"
)

// The UserGroups mirror follows GroupMembers through the projection kit:
// a member write that stopped before its mirror (injected here by
// writing GroupMembers alone) is repaired from the member row, and the
// rebuild also removes mirror rows whose member row is gone.
func TestTheMirrorRepairsAHalfFinishedWrite(t *testing.T) {
	t.Parallel()
	a := newGroupsApp(t)
	ann := a.signIn(t, "ann@example.com")
	id := createGroup(t, ann, "Smiths")
	if res := invite(t, ann, id, "bob@example.com"); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("invite: %d", res.StatusCode)
	}
	bob := a.signIn(t, "bob@example.com")

	// Bob accepts, but the process dies before the mirror is written.
	row := a.member(t, id, "bob@example.com")
	row.Status, row.MemberKey, row.JoinedAt = StatusActive, bob.id.MemberKey, timePtr(a.Clock.Now())
	if _, err := storage.Upsert(ctx, a.svc.members, row); err != nil {
		t.Fatal(err)
	}
	if ug := a.userGroup(t, id, "bob@example.com"); ug.Status != StatusInvited {
		t.Fatalf("the injected crash left the mirror %q", ug.Status)
	}
	if err := a.svc.RepairMembership(ctx, id, auth.UserKey("bob@example.com")); err != nil {
		t.Fatal(err)
	}
	if ug := a.userGroup(t, id, "bob@example.com"); ug.Status != StatusActive || ug.JoinedAt == nil {
		t.Fatalf("after repair: %+v", ug)
	}
	card := bob.c.Get("/groups").Doc(t).Find(testID("group-card"))
	if s, _ := card.Attr("data-status"); s != "active" {
		t.Errorf("bob's dashboard shows the group as %q", s)
	}

	// Damage the mirror three ways; the rebuild puts it right.
	ghost := UserGroupRow{PartitionKey: auth.UserKey("ghost@example.com"), RowKey: id, GroupID: id, Status: StatusActive, UpdatedAt: a.Clock.Now()}
	if _, err := storage.Upsert(ctx, a.svc.userGroups, ghost); err != nil {
		t.Fatal(err)
	}
	pk, rk := userGroupKey(auth.UserKey("ann@example.com"), id)
	if err := a.svc.userGroups.Delete(ctx, pk, rk, storage.AnyETag); err != nil {
		t.Fatal(err)
	}
	stale := a.userGroup(t, id, "bob@example.com")
	stale.Status = StatusRemoved
	if _, err := storage.Upsert(ctx, a.svc.userGroups, stale); err != nil {
		t.Fatal(err)
	}
	rep, err := a.svc.Rebuild(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if got := rep.(RebuildReport); got.Report != (projection.Report{Canonical: 2, Written: 2, Removed: 1}) || got.Summaries != 1 {
		t.Errorf("report %+v", got)
	}
	if ug := a.userGroup(t, id, "ann@example.com"); ug.Status != StatusActive {
		t.Errorf("ann's lost row: %+v", ug)
	}
	if ug := a.userGroup(t, id, "bob@example.com"); ug.Status != StatusActive {
		t.Errorf("bob's stale row: %+v", ug)
	}
	if _, err := a.svc.userGroups.Get(ctx, auth.UserKey("ghost@example.com"), id); err == nil {
		t.Error("the orphan mirror row survived")
	}
	if rep, _ := a.svc.Rebuild(ctx); !strings.HasPrefix(rep.String(), "2 canonical rows read; 0 derived rows written, 0 removed") {
		t.Errorf("second run: %s", rep)
	}
}

// refusingMirror fails, while on, every write of a UserGroups row, as a
// store that stopped answering would.
type refusingMirror struct {
	storage.Backend
	on *atomic.Bool
}

func (r refusingMirror) Upsert(ctx context.Context, table string, e storage.Entity, mode storage.UpdateMode) (string, error) {
	if r.on.Load() && strings.HasSuffix(table, userGroupsTable) {
		return "", storage.ErrTransient
	}
	return r.Backend.Upsert(ctx, table, e, mode)
}

func (r refusingMirror) Transact(ctx context.Context, table string, ops []storage.TxOp) error {
	if r.on.Load() && strings.HasSuffix(table, userGroupsTable) {
		return storage.ErrTransient
	}
	return r.Backend.Transact(ctx, table, ops)
}

// TestAGroupStandsWhenItsMirrorDoesNot: a group made while its owner's
// UserGroups row cannot be written is made once and answered as made
// (an error would have them make it twice): its page opens, and the
// rebuild puts it on their list.
func TestAGroupStandsWhenItsMirrorDoesNot(t *testing.T) {
	t.Parallel()
	var refuse atomic.Bool
	a := newGroupsAppOn(t, func(b storage.Backend) storage.Backend { return refusingMirror{b, &refuse} })
	ann := a.signIn(t, "ann@example.com")
	refuse.Store(true)
	id := createGroup(t, ann, "Smiths")
	if res := ann.c.Get("/groups/" + id); res.StatusCode != http.StatusOK {
		t.Fatalf("the group's page: %d", res.StatusCode)
	}
	refuse.Store(false)
	if n := ann.c.Get("/groups").Doc(t).Find(testID("group-card")).Length(); n != 0 {
		t.Fatalf("the set-up: the list shows %d groups", n)
	}
	if _, err := a.svc.Rebuild(ctx); err != nil {
		t.Fatal(err)
	}
	if n := ann.c.Get("/groups").Doc(t).Find(testID("group-card")).Length(); n != 1 {
		t.Errorf("after the rebuild the list shows %d groups", n)
	}
}
