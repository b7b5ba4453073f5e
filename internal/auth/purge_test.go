package auth

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/harmony/harmony/internal/storage"
)

func TestPurgeDeletesExpiredSessionsOnly(t *testing.T) {
	t.Parallel()
	h := newHarness(t, harnessOptions{env: map[string]string{"SESSION_IDLE_TIMEOUT": "1h", "SESSION_MAX_AGE": "2h"}})
	ctx := context.Background()
	purge := func() int {
		t.Helper()
		n, err := h.svc.PurgeExpiredSessions(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	laptop, phone, boris := h.client(), h.client(), h.client()
	anna := h.signIn(laptop, "anna@example.org")
	h.signIn(phone, "anna@example.org")
	borisKey := h.signIn(boris, "boris@example.org")

	h.clock.Advance(50 * time.Minute)
	if n := purge(); n != 0 {
		t.Fatalf("purged %d live sessions", n)
	}
	h.memberOf(phone) // the phone stays in use; the laptop is left idle
	h.memberOf(boris)
	h.clock.Advance(50 * time.Minute)
	h.memberOf(phone)
	tablet := h.client()
	h.signIn(tablet, "anna@example.org")
	tabletID := h.sessionOf(tablet)

	// At 2h05: the laptop is idle for over an hour, the phone and Boris are
	// past SESSION_MAX_AGE though active; only the tablet is live.
	h.clock.Advance(25 * time.Minute)
	job := h.svc.PurgeSessionsJob()
	if job.Name != "auth-session-purge" || job.Every != time.Hour {
		t.Errorf("job %q every %v", job.Name, job.Every)
	}
	if err := job.Run(ctx); err != nil {
		t.Fatal(err)
	}
	rows := h.sessionRows(anna)
	if len(rows) != 1 || rows[0].ID != tabletID {
		t.Errorf("anna's rows after the purge: %d, want the tablet's only", len(rows))
	}
	if len(h.sessionRows(borisKey)) != 0 {
		t.Error("boris's expired row is still there")
	}
	infos, err := h.svc.ListSessions(ctx, anna, tabletID)
	if err != nil || len(infos) != 1 || infos[0].ID != tabletID || !infos[0].Current {
		t.Errorf("ListSessions after the purge: %+v, %v", infos, err)
	}
	if h.memberOf(tablet) != anna {
		t.Error("the purge ended a live session")
	}
	if n := purge(); n != 0 {
		t.Errorf("a second run purged %d", n)
	}
}

func TestPurgeIsBoundedPerRun(t *testing.T) {
	t.Parallel()
	h := newHarness(t, harnessOptions{})
	ctx := context.Background()
	old := h.clock.Now().Add(-365 * 24 * time.Hour)
	const expired = maxSessionPurge + 3
	for i := range expired {
		e, err := storage.Marshal(&sessionRow{
			MemberKey: fmt.Sprintf("auth:m%02d", i%50), ID: fmt.Sprintf("%032x", i),
			CreatedAt: old, LastSeenAt: old, ExpiresAt: old.Add(time.Hour),
		})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := h.svc.sessions.Insert(ctx, e); err != nil {
			t.Fatal(err)
		}
	}
	live := h.signIn(h.client(), "anna@example.org")
	for i, want := range []int{maxSessionPurge, 3, 0} {
		n, err := h.svc.PurgeExpiredSessions(ctx)
		if err != nil || n != want {
			t.Fatalf("run %d: purged %d, %v; want %d", i+1, n, err, want)
		}
	}
	if len(h.sessionRows(live)) != 1 {
		t.Error("the live session went too")
	}
}
