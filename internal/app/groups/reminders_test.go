package groups

import (
	"context"
	"io"
	"log/slog"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/harmony/harmony/internal/app/inbox"
	"github.com/harmony/harmony/internal/mail"
	"github.com/harmony/harmony/internal/platform"
	"github.com/harmony/harmony/internal/storage"
	"github.com/harmony/harmony/internal/tasks"
	"github.com/harmony/harmony/internal/web"
)

// secondInstance builds the app again on the same store, clock and
// mailbox, as a second server would run: its own task queue and
// services. It returns the queue.
func (a *groupsApp) secondInstance(t *testing.T) *tasks.Queue {
	t.Helper()
	var in *inbox.Service
	built, err := platform.Build(context.Background(), a.Config, a.Store, slog.New(slog.NewTextHandler(io.Discard, nil)),
		platform.Options{Now: a.Clock.Now, Mailer: a.Mailbox},
		func(c *platform.Core) (web.Module, error) {
			var err error
			in, err = inbox.FromCore(c)
			return in, err
		},
		func(c *platform.Core) (web.Module, error) {
			s := New(c.Store, c.Accounts, c.Cursors, "http://localhost:8080", c.Log, c.Now)
			s.UseNotifier(in)
			return s, s.UseTasks(c.Tasks)
		})
	if err != nil {
		t.Fatal(err)
	}
	return built.Core.Tasks
}

// drainBoth runs the due tasks on both instances at once until neither
// finds any.
func drainBoth(t *testing.T, qs ...*tasks.Queue) {
	t.Helper()
	for range 10 {
		var wg sync.WaitGroup
		ran := make([]int, len(qs))
		for i, q := range qs {
			wg.Add(1)
			go func() {
				defer wg.Done()
				rep, err := q.RunDue(context.Background())
				if err != nil {
					t.Errorf("drain: %v", err)
				}
				ran[i] = rep.Done + rep.Retried + rep.Dead
			}()
		}
		wg.Wait()
		if sum := ran[0] + ran[len(ran)-1]; sum == 0 {
			return
		}
	}
}

// reminders are the reminder mails to address so far.
func reminderMails(box *mail.DevMailbox, to string) []mail.Delivered {
	var out []mail.Delivered
	for _, m := range box.Recent() {
		if m.To == to && strings.Contains(m.Subject, "Training") && (strings.HasPrefix(m.Subject, "Reminder") || strings.HasPrefix(m.Subject, "You pick up")) {
			out = append(out, m)
		}
	}
	return out
}

// TestRemindersAreSentOnceOnTime: a weekly training at 17:00 Berlin,
// Bob picking up (reminded an hour before by default), Ann asking for a
// day before: each gets their reminder at its time, in their inbox and
// by mail with the time in their own zone, once, though two instances
// drain the queue; the next week's follows.
func TestRemindersAreSentOnceOnTime(t *testing.T) {
	t.Parallel()
	a := newGroupsApp(t)
	ann, bob, id := joinedPair(t, a)
	if res := post(t, bob.c, "/account/timezone", url.Values{"timezone": {"Europe/Berlin"}}); res.StatusCode >= 400 {
		t.Fatalf("bob's zone: %d", res.StatusCode)
	}
	m, _, _ := a.svc.Open(ctx, id, ann.id, AccessMember)
	berlin := mustZone(t, "Europe/Berlin")
	// Tuesdays 17:00 Berlin (15:00 UTC) from 21 May 2030; the clock is
	// Friday 17 May, 09:30 UTC.
	doc, err := a.svc.CreateAppointment(ctx, m, ann.id, AppointmentInput{
		Title: "Training", Start: "2030-05-21T17:00", End: "2030-05-21T18:30",
		Participants: []string{ann.id.MemberKey}, Responsible: bob.id.MemberKey,
		Repeat: RepeatInput{Freq: RepeatWeekly},
	}, berlin)
	if err != nil {
		t.Fatal(err)
	}
	if res := post(t, ann.c, "/groups/"+id+"/appointments/"+doc.AppointmentID+"/remind", url.Values{"remind": {"1440"}}); res.StatusCode != 303 {
		t.Fatalf("ann's reminder: %d", res.StatusCode)
	}
	if res := post(t, ann.c, "/groups/"+id+"/appointments/"+doc.AppointmentID+"/remind", url.Values{"remind": {"7"}}); res.StatusCode != 400 {
		t.Fatalf("a reminder not offered: %d", res.StatusCode)
	}
	second := a.secondInstance(t)
	inboxCount := func(p person) int {
		return strings.Count(p.c.Get("/inbox").Doc(t).Find(testID("inbox-list")).Text(), "Reminder:")
	}
	at := func(s string) {
		t.Helper()
		when, _ := time.Parse(time.RFC3339, s)
		a.Clock.Advance(when.Sub(a.Clock.Now()))
		drainBoth(t, a.Tasks, second)
	}

	at("2030-05-20T14:59:00Z") // a minute before Ann's
	if inboxCount(ann) != 0 || len(reminderMails(a.Mailbox, "ann@example.com")) != 0 {
		t.Fatal("ann reminded early")
	}
	at("2030-05-20T15:00:30Z") // a day before
	if n, mails := inboxCount(ann), reminderMails(a.Mailbox, "ann@example.com"); n != 1 || len(mails) != 1 {
		t.Fatalf("a day before: ann has %d in the inbox and %d mails, want 1 and 1", n, len(mails))
	}
	if inboxCount(bob) != 0 {
		t.Fatal("bob reminded a day early")
	}
	at("2030-05-21T14:00:30Z") // an hour before: bob, who picks up
	mails := reminderMails(a.Mailbox, "bob@example.com")
	if n := inboxCount(bob); n != 1 || len(mails) != 1 {
		t.Fatalf("an hour before: bob has %d in the inbox and %d mails", n, len(mails))
	}
	if !strings.Contains(mails[0].Subject, "You pick up") || !strings.Contains(mails[0].Text, "17:00") {
		t.Fatalf("bob's mail is not in his zone: %q\n%s", mails[0].Subject, mails[0].Text)
	}
	at("2030-05-21T14:30:00Z") // later: nothing again
	if inboxCount(ann) != 1 || inboxCount(bob) != 1 || len(reminderMails(a.Mailbox, "bob@example.com")) != 1 {
		t.Fatal("a reminder was sent twice")
	}
	at("2030-05-27T15:00:30Z") // next week's, a day before
	if n := inboxCount(ann); n != 2 {
		t.Fatalf("next week: ann has %d reminders, want 2", n)
	}
	// Cancelling next week's occurrence stops its reminder to bob.
	if err := a.svc.CancelOccurrence(ctx, m, ann.id, doc.AppointmentID, "20300528150000Z"); err != nil {
		t.Fatal(err)
	}
	at("2030-05-28T14:00:30Z")
	if n := inboxCount(bob); n != 1 {
		t.Fatalf("bob was reminded of a cancelled occurrence: %d", n)
	}
}

// refusingReminders fails, while on, every queueing of a reminder task (a
// Tasks transaction that inserts the key of one, "remind|…"; the
// notices it posts have keys of their own, "reminder|…"), as a store
// that stopped answering would.
type refusingReminders struct {
	storage.Backend
	on *atomic.Bool
}

func (r refusingReminders) Transact(ctx context.Context, table string, ops []storage.TxOp) error {
	for _, op := range ops {
		if r.on.Load() && table == tasks.Table && strings.HasPrefix(op.Entity.RowKey, "k|"+storage.EscapeKey("remind|")) {
			return storage.ErrTransient
		}
	}
	return r.Backend.Transact(ctx, table, ops)
}

// trainingSeries makes the weekly Tuesday training at 17:00 Berlin from
// 21 May 2030 that bob picks up (reminded an hour before by mail), and
// returns the series' id.
func trainingSeries(t *testing.T, a *groupsApp) string {
	t.Helper()
	ann, bob, id := joinedPair(t, a)
	m, _, _ := a.svc.Open(ctx, id, ann.id, AccessMember)
	doc, err := a.svc.CreateAppointment(ctx, m, ann.id, AppointmentInput{
		Title: "Training", Start: "2030-05-21T17:00", End: "2030-05-21T18:30",
		Participants: []string{ann.id.MemberKey}, Responsible: bob.id.MemberKey,
		Repeat: RepeatInput{Freq: RepeatWeekly},
	}, mustZone(t, "Europe/Berlin"))
	if err != nil {
		t.Fatal(err)
	}
	return doc.AppointmentID
}

// TestASeriesRemindsOnAfterTheQueueFailed: when the next week's reminder
// cannot be queued as this week's goes out, the task fails and is tried
// again, so the series keeps reminding (it stopped for good before), and
// nobody hears twice.
func TestASeriesRemindsOnAfterTheQueueFailed(t *testing.T) {
	t.Parallel()
	var refuse atomic.Bool
	a := newGroupsAppOn(t, func(b storage.Backend) storage.Backend { return refusingReminders{b, &refuse} })
	trainingSeries(t, a)
	at := func(s string) {
		t.Helper()
		when, _ := time.Parse(time.RFC3339, s)
		a.Clock.Advance(when.Sub(a.Clock.Now()))
		if _, err := a.Tasks.RunDue(ctx); err != nil {
			t.Fatal(err)
		}
	}
	refuse.Store(true)
	at("2030-05-21T14:00:30Z") // bob's reminder, an hour before; the next cannot be queued
	refuse.Store(false)
	at("2030-05-21T15:00:00Z") // the failed task is tried again
	if n := len(reminderMails(a.Mailbox, "bob@example.com")); n != 1 {
		t.Fatalf("this week: bob has %d reminder mails, want 1", n)
	}
	at("2030-05-28T14:00:30Z") // next week's
	if n := len(reminderMails(a.Mailbox, "bob@example.com")); n != 2 {
		t.Fatalf("next week: bob has %d reminder mails, want 2", n)
	}
}

// TestRebuildQueuesLostReminders: a series whose reminder was never
// queued (the save stood, the queue refused) gets it back from the
// groups rebuild, run twice, and bob hears once.
func TestRebuildQueuesLostReminders(t *testing.T) {
	t.Parallel()
	var refuse atomic.Bool
	a := newGroupsAppOn(t, func(b storage.Backend) storage.Backend { return refusingReminders{b, &refuse} })
	refuse.Store(true)
	trainingSeries(t, a)
	refuse.Store(false)
	for range 2 {
		report, err := a.svc.Rebuild(ctx)
		if err != nil || !strings.HasSuffix(report.String(), "; 1 reminders queued") {
			t.Fatalf("rebuild: %v %v", report, err)
		}
	}
	when, _ := time.Parse(time.RFC3339, "2030-05-21T14:00:30Z")
	a.Clock.Advance(when.Sub(a.Clock.Now()))
	drainBoth(t, a.Tasks)
	if n := len(reminderMails(a.Mailbox, "bob@example.com")); n != 1 {
		t.Fatalf("bob has %d reminder mails, want 1", n)
	}
}
