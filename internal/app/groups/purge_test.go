package groups

import (
	"errors"
	"net/http"
	"testing"
	"time"

	"github.com/harmony/harmony/internal/auth"
	"github.com/harmony/harmony/internal/metrics"
	"github.com/harmony/harmony/internal/storage"
)

func TestPurgeRemovesDeletedGroupsPastPurgeAfter(t *testing.T) {
	t.Parallel()
	a := newGroupsApp(t)
	olga := a.signIn(t, "olga@example.com")
	doomed := createGroup(t, olga, "Doomed")
	kept := createGroup(t, olga, "Kept")
	if res := invite(t, olga, doomed, "bob@example.com"); res.StatusCode != http.StatusSeeOther {
		t.Fatal("invite")
	}
	gus := a.joinAsGuest(t, doomed, openJoin(t, olga, doomed), "Gus")
	blobs := a.Store.Container(GroupBlobsContainer)
	for _, name := range []string{"groups/" + doomed + "/appointments/x/appointment.json", "groups/" + kept + "/appointments/y/appointment.json"} {
		if _, err := blobs.Put(ctx, name, []byte("{}"), "application/json"); err != nil {
			t.Fatal(err)
		}
	}
	ppk, prk := participantKey(doomed, "appt1", olga.id.MemberKey)
	for _, e := range []struct {
		t      *storage.Table
		pk, rk string
	}{{a.svc.appointments, doomed, "20300101120000Z|appt1"}, {a.svc.participants, ppk, prk}} {
		if _, err := e.t.Insert(ctx, storage.Entity{PartitionKey: e.pk, RowKey: e.rk, Props: map[string]any{"appointmentId": "appt1"}}); err != nil {
			t.Fatal(err)
		}
	}
	if res := post(t, olga.c, "/groups/"+doomed+"/delete", confirmed); res.StatusCode != http.StatusSeeOther {
		t.Fatal("delete")
	}

	// Within the 30 days nothing goes.
	a.Clock.Advance(PurgeAfter - time.Hour)
	if n, err := a.svc.purgeDue(ctx); err != nil || n != 0 {
		t.Fatalf("early purge: %d %v", n, err)
	}
	if _, err := a.svc.groups.Get(ctx, groupsPartition, doomed); err != nil {
		t.Fatalf("group purged early: %v", err)
	}

	a.Clock.Advance(2 * time.Hour)
	if n, err := a.svc.purgeDue(ctx); err != nil || n != 1 {
		t.Fatalf("purge: %d %v", n, err)
	}
	gone := func(what string, err error) {
		t.Helper()
		if !errors.Is(err, storage.ErrNotFound) {
			t.Errorf("%s not purged: %v", what, err)
		}
	}
	_, err := a.svc.groups.Get(ctx, groupsPartition, doomed)
	gone("Groups row", err)
	for name, table := range map[string]*storage.Table{
		"GroupMembers": a.svc.members, "JoinSessions": a.svc.joinSessions, "AppointmentsIndex": a.svc.appointments,
	} {
		page, err := table.Query(ctx, storage.Query{PartitionKey: doomed})
		if err != nil || len(page.Entities) != 0 {
			t.Errorf("%s left: %d %v", name, len(page.Entities), err)
		}
	}
	if page, _ := a.svc.participants.Query(ctx, storage.Query{PartitionKey: ppk}); len(page.Entities) != 0 {
		t.Error("AppointmentParticipants left")
	}
	for _, pk := range []string{olga.id.UserKey, auth.UserKey("bob@example.com"), gus.id.MemberKey} {
		_, err := a.svc.userGroups.Get(ctx, pk, doomed)
		gone("UserGroups row of "+pk, err)
	}
	if left, _ := blobs.List(ctx, "groups/"+doomed+"/"); len(left) != 0 {
		t.Errorf("blobs left: %v", left)
	}
	// The other group is untouched.
	if left, _ := blobs.List(ctx, "groups/"+kept+"/"); len(left) != 1 {
		t.Errorf("kept group's blobs: %d", len(left))
	}
	if _, err := a.svc.group(ctx, kept); err != nil {
		t.Fatalf("kept group: %v", err)
	}
	// Idempotent: a second run finds nothing, and the job runs the same.
	if n, err := a.svc.purgeDue(ctx); err != nil || n != 0 {
		t.Fatalf("second purge: %d %v", n, err)
	}
	if job := a.svc.PurgeJob(); job.Name != "groups-purge" || job.Every != time.Hour || job.Run(ctx) != nil {
		t.Fatalf("job %+v", job)
	}
}

// A purge cut short (here: only the member step ran) is finished by the
// next run.
func TestPurgeResumes(t *testing.T) {
	t.Parallel()
	a := newGroupsApp(t)
	olga := a.signIn(t, "olga@example.com")
	id := createGroup(t, olga, "Half")
	openJoin(t, olga, id)
	if res := post(t, olga.c, "/groups/"+id+"/delete", confirmed); res.StatusCode != http.StatusSeeOther {
		t.Fatal("delete")
	}
	if err := a.svc.purgeMembers(ctx, id); err != nil {
		t.Fatal(err)
	}
	a.Clock.Advance(PurgeAfter + time.Minute)
	if err := a.svc.Purge(ctx); err != nil {
		t.Fatal(err)
	}
	if page, _ := a.svc.joinSessions.Query(ctx, storage.Query{PartitionKey: id}); len(page.Entities) != 0 {
		t.Fatal("join sessions left")
	}
	if _, err := a.svc.groups.Get(ctx, groupsPartition, id); !errors.Is(err, storage.ErrNotFound) {
		t.Fatalf("group left: %v", err)
	}
}

func TestGroupMetrics(t *testing.T) {
	t.Parallel()
	a := newGroupsApp(t)
	if err := a.Store.Provision(ctx, []string{"DailyMetrics"}, nil); err != nil {
		t.Fatal(err)
	}
	metrics := metrics.NewDaily(a.Store, a.Clock.Now)
	a.svc.CountWith(metrics)
	olga := a.signIn(t, "olga@example.com")
	id := createGroup(t, olga, "Counted")
	invite(t, olga, id, "bob@example.com")
	invite(t, olga, id, "carl@example.com")
	a.Clock.Advance(ResendCooldown + time.Minute)
	// A resend is the same invitation: not counted again.
	invite(t, olga, id, "bob@example.com")
	bob := a.signIn(t, "bob@example.com")
	for range 2 { // the second click changes nothing
		if res := post(t, bob.c, "/groups/"+id+"/invite/accept", nil); res.StatusCode != http.StatusSeeOther {
			t.Fatalf("accept: %d", res.StatusCode)
		}
	}
	// Joining by link is not an accepted invitation.
	a.joinAsGuest(t, id, openJoin(t, olga, id), "Gus")
	days, err := metrics.Last(ctx, 1)
	if err != nil {
		t.Fatal(err)
	}
	d := days[len(days)-1]
	if d.Get(NewGroups) != 1 || d.Get(InvitesSent) != 2 || d.Get(InvitesAccepted) != 1 {
		t.Fatalf("counters %+v", d)
	}
}
