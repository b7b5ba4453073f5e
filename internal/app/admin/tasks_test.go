package admin

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/harmony/harmony/internal/i18n"
	"github.com/harmony/harmony/internal/storage"
	"github.com/harmony/harmony/internal/tasks"
	"github.com/harmony/harmony/internal/web/webtest"
)

// reminderTo is the payload of the tests' tasks: it names a person, as a
// real one does.
type reminderTo struct{ To, Text string }

// secretAddress is in every payload; no page may show it.
const secretAddress = "hidden.person@example.org"

// flakyReminders is another instance's queue on the app's store with a
// kind the page describes ("events.reminder"), whose runs fail until ok.
type flakyReminders struct {
	q    *tasks.Queue
	kind tasks.Kind[reminderTo]
	ok   atomic.Bool
	a    *adminApp
}

func newFlakyReminders(t *testing.T, a *adminApp) *flakyReminders {
	t.Helper()
	f := &flakyReminders{a: a}
	f.q = tasks.New(a.Store, slog.New(slog.NewTextHandler(io.Discard, nil)), tasks.Options{
		Now: a.Clock.Now, Holder: "web-7", MaxAttempts: 3,
		Backoff: func(int) time.Duration { return time.Minute },
	})
	var err error
	f.kind, err = tasks.Register(f.q, "events.reminder", func(context.Context, reminderTo) error {
		if f.ok.Load() {
			return nil
		}
		return errors.New("smtp: 451 4.7.1 greylisted, try again later; " + strings.Repeat("the server said more. ", 10))
	})
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// dead enqueues a reminder under key and runs it until it failed for
// good (MaxAttempts runs), returning it.
func (f *flakyReminders) dead(t *testing.T, key string) tasks.TaskRow {
	t.Helper()
	if err := f.kind.Enqueue(ctx, key, reminderTo{To: secretAddress, Text: "Dentist at 9"}); err != nil {
		t.Fatal(err)
	}
	for range 3 {
		if _, err := f.q.RunDue(ctx); err != nil {
			t.Fatal(err)
		}
		f.a.Clock.Advance(2 * time.Minute)
	}
	dead, err := f.q.Dead(ctx, 1)
	if err != nil || len(dead) != 1 {
		t.Fatalf("dead %+v, %v", dead, err)
	}
	return dead[0]
}

// newTasksApp is the admin app with a signed-in admin and another
// instance's flaky reminders.
func newTasksApp(t *testing.T) (*adminApp, *webtest.Client, *flakyReminders) {
	t.Helper()
	a := newAdminApp(t)
	boss := a.Client()
	a.SignIn(boss, bossEmail)
	return a, boss, newFlakyReminders(t, a)
}

func htmx() []string { return []string{"HX-Request", "true", "HX-Request-Type", "partial"} }

// A task that failed MaxAttempts times shows among the dead with its
// kind described, its attempts and its error, in English and Russian;
// its payload's text never shows, only its size.
func TestADeadTaskShowsWithItsErrorAndKind(t *testing.T) {
	t.Parallel()
	_, boss, f := newTasksApp(t)
	f.dead(t, "remind|a1")
	// And one waiting to be retried.
	if err := f.kind.Enqueue(ctx, "", reminderTo{To: secretAddress}); err != nil {
		t.Fatal(err)
	}
	f.q.RunDue(ctx)

	for _, tc := range []struct{ lang, kind, attempts, retrying string }{
		{"en", "Event reminder", "3 attempts", "Retrying"},
		{"ru", "Напоминание о мероприятии", "3 попытки", "Повторяются"},
	} {
		res := boss.Get("/admin/tasks", "Accept-Language", tc.lang)
		if res.StatusCode != http.StatusOK {
			t.Fatalf("%s: %d", tc.lang, res.StatusCode)
		}
		if strings.Contains(res.Body, secretAddress) || strings.Contains(res.Body, "Dentist") {
			t.Errorf("%s: the page shows a payload", tc.lang)
		}
		doc := res.Doc(t)
		row := doc.Find(testID("dead-task-row"))
		if row.Length() != 1 {
			t.Fatalf("%s: %d dead rows", tc.lang, row.Length())
		}
		if got := row.Find(testID("task-kind-name")).Text(); got != tc.kind {
			t.Errorf("%s: kind %q, want %q", tc.lang, got, tc.kind)
		}
		if got := row.Find(testID("task-kind")).Text(); got != "events.reminder" {
			t.Errorf("%s: kind code %q", tc.lang, got)
		}
		if got := row.Find(testID("task-attempts")).Text(); !strings.Contains(got, tc.attempts) {
			t.Errorf("%s: attempts %q", tc.lang, got)
		}
		if got := row.Find(testID("task-error") + " pre").Text(); !strings.HasPrefix(got, "smtp: 451 4.7.1 greylisted") || !strings.HasSuffix(got, "the server said more. ") {
			t.Errorf("%s: full error %q", tc.lang, got)
		}
		if got := row.Find(testID("task-error") + " summary").Text(); !strings.HasSuffix(got, "…") {
			t.Errorf("%s: the long error is not shortened: %q", tc.lang, got)
		}
		if got := row.Find(testID("task-key") + " code").Text(); got != "remind|a1" {
			t.Errorf("%s: key %q", tc.lang, got)
		}
		if got := row.Find(testID("task-size")).Text(); !strings.Contains(got, "5") {
			t.Errorf("%s: size %q", tc.lang, got)
		}
		if doc.Find(testID("task-row")+" "+testID("task-retrying")).Text() != tc.retrying {
			t.Errorf("%s: the retrying task is not marked", tc.lang)
		}
		kindRow := doc.Find(testID("tasks-kind-row") + `[data-kind="events.reminder"]`)
		if kindRow.Find(`[data-state="dead"]`).Text() != "1" || kindRow.Find(`[data-state="retrying"]`).Text() != "1" {
			t.Errorf("%s: counts by kind %q", tc.lang, kindRow.Text())
		}
	}
	// The overview's card counts them.
	card := boss.Get("/admin").Doc(t).Find(testID("admin-tool-tasks"))
	if note := card.Find(testID("admin-tool-note")).Text(); note != "0\u00a0waiting · 1\u00a0retrying · 1\u00a0failed" {
		t.Errorf("overview card %q", note)
	}
	if alert := card.Find(testID("admin-tool-alert")).Text(); alert != "1 failed" {
		t.Errorf("overview card's badge %q", alert)
	}
}

// "Run again" queues the dead task: it runs and leaves the dead list. A
// second "Run again" of it is a 404 that writes nothing; the action is
// in the moderation log.
func TestRunAgainRunsADeadTask(t *testing.T) {
	t.Parallel()
	a, boss, f := newTasksApp(t)
	dead := f.dead(t, "")
	retry := "/admin/tasks/" + dead.Ref() + "/retry"

	res := boss.PostForm(retry, boss.WithCSRF("/admin/tasks", nil))
	if res.StatusCode != http.StatusSeeOther || res.Header.Get("Location") != "/admin/tasks#dead-heading" {
		t.Fatalf("run again: %d %q", res.StatusCode, res.Header.Get("Location"))
	}
	doc := boss.Get("/admin/tasks").Doc(t)
	if doc.Find(testID("flash")).Length() != 1 || doc.Find(testID("dead-task-row")).Length() != 0 {
		t.Error("after run again: no flash, or the task is still dead")
	}
	if doc.Find(testID("task-row")).Length() != 1 {
		t.Error("the task run again does not wait")
	}
	again := boss.PostForm(retry, boss.WithCSRF("/admin/tasks", nil))
	if again.StatusCode != http.StatusNotFound || again.Writes(t) != 0 || !strings.Contains(again.Body, "no longer there") {
		t.Errorf("a second run again: %d, %d writes", again.StatusCode, again.Writes(t))
	}
	f.ok.Store(true)
	if rep, err := f.q.RunDue(ctx); err != nil || rep.Done != 1 {
		t.Fatalf("the task run again: %+v %v", rep, err)
	}
	if s, _ := f.q.Summarize(ctx); s.Counts != (tasks.Counts{}) {
		t.Errorf("queue after the run: %+v", s.Counts)
	}
	log, _ := a.svc.RecentLog(ctx, 10)
	if len(log) != 1 || log[0].Action != actionTaskRetry || log[0].TargetKey != dead.ID {
		t.Errorf("log %+v", log)
	}
}

// "Run all again" on a kind's row asks first (nothing written), then
// queues every dead task of the kind to run now, says so, and logs it
// once with how many; pressed again, or for a kind that is no kind's
// name, it is a 404 that writes nothing.
func TestRunAllAgainOfAKind(t *testing.T) {
	t.Parallel()
	a, boss, f := newTasksApp(t)
	f.dead(t, "remind|k1")
	f.dead(t, "remind|k2")
	if got := boss.Get("/admin/tasks").Doc(t).Find(testID("tasks-summary") + " " + testID("task-retry-kind")); got.Length() != 1 || got.Text() != "Run all again: Event reminder (events.reminder)" {
		t.Fatalf("the kind with dead tasks offers %d run all again: %q", got.Length(), got.Text())
	}
	retry := "/admin/tasks/kinds/events.reminder/retry"
	ask := boss.PostForm(retry, boss.WithCSRF("/admin/tasks", nil))
	if ask.StatusCode != http.StatusOK || ask.Writes(t) != 0 || ask.Doc(t).Find(testID("task-retry-kind-confirm")).Length() != 1 {
		t.Fatalf("unconfirmed: %d, %d writes", ask.StatusCode, ask.Writes(t))
	}
	res := boss.PostForm(retry, boss.WithCSRF("/admin/tasks", url.Values{"confirm": {"yes"}}))
	if res.StatusCode != http.StatusSeeOther || res.Header.Get("Location") != "/admin/tasks#summary-heading" {
		t.Fatalf("run all again: %d %q", res.StatusCode, res.Header.Get("Location"))
	}
	doc := boss.Get("/admin/tasks").Doc(t)
	if doc.Find(testID("flash")).Length() != 1 || doc.Find(testID("dead-task-row")).Length() != 0 || doc.Find(testID("task-row")).Length() != 2 {
		t.Errorf("after run all again: %d dead, %d waiting", doc.Find(testID("dead-task-row")).Length(), doc.Find(testID("task-row")).Length())
	}
	if doc.Find(testID("task-retry-kind")).Length() != 0 {
		t.Error("a kind without dead tasks offers run all again")
	}
	log, _ := a.svc.RecentLog(ctx, 10)
	if len(log) != 1 || log[0].Action != actionTaskRetryKind || log[0].TargetName != "events.reminder (2)" {
		t.Errorf("log %+v", log)
	}
	for _, path := range []string{retry, "/admin/tasks/kinds/NOT%20A%20KIND/retry", "/admin/tasks/kinds/" + strings.Repeat("k", 65) + "/retry"} {
		again := boss.PostForm(path, boss.WithCSRF("/admin/tasks", url.Values{"confirm": {"yes"}}))
		if again.StatusCode != http.StatusNotFound || again.Writes(t) != 0 {
			t.Errorf("%s: %d, %d writes", path, again.StatusCode, again.Writes(t))
		}
	}
}

// A retry at the command line (web tasks retry: an actor without a
// member key) is in the moderation log as an operator's, in each
// language.
func TestAnOperatorsRetryIsLogged(t *testing.T) {
	t.Parallel()
	a, boss, f := newTasksApp(t)
	dead := f.dead(t, "")
	if _, err := a.svc.RetryTask(ctx, Actor{}, dead.Ref()); err != nil {
		t.Fatal(err)
	}
	for lang, want := range map[string]string{"en": "An operator, at the command line: ", "ru": "Оператор, из командной строки: "} {
		row := boss.Get("/admin", "Accept-Language", lang).Doc(t).Find(testID("admin-log-row"))
		if got := strings.NewReplacer("\u2068", "", "\u2069", "").Replace(row.Text()); row.AttrOr("data-action", "") != actionTaskRetry || !strings.Contains(got, want) {
			t.Errorf("%s: the log row %q", lang, row.Text())
		}
	}
}

// With htmx the row answers in place; "Discard" asks first, then deletes
// the dead task.
func TestDiscardAsksThenDeletesInPlace(t *testing.T) {
	t.Parallel()
	a, boss, f := newTasksApp(t)
	dead := f.dead(t, "remind|b2")
	discard := "/admin/tasks/" + dead.Ref() + "/discard"

	ask := boss.PostForm(discard, boss.WithCSRF("/admin/tasks", nil), htmx()...)
	if ask.StatusCode != http.StatusOK || ask.Doc(t).Find(testID("confirm-row")).Length() != 1 || ask.Writes(t) != 0 {
		t.Fatalf("discard unconfirmed: %d, %d writes", ask.StatusCode, ask.Writes(t))
	}
	res := boss.PostForm(discard, boss.WithCSRF("/admin/tasks", url.Values{"confirm": {"yes"}}), htmx()...)
	if res.StatusCode != http.StatusOK {
		t.Fatalf("discard: %d", res.StatusCode)
	}
	if got := res.Doc(t).Find(testID("task-done")).Text(); got != "The failed task was discarded." {
		t.Errorf("row after discard %q", got)
	}
	if s, _ := f.q.Summarize(ctx); s.Counts != (tasks.Counts{}) {
		t.Errorf("queue after the discard: %+v", s.Counts)
	}
	if log, _ := a.svc.RecentLog(ctx, 10); len(log) != 1 || log[0].Action != actionTaskDiscard {
		t.Errorf("log %+v", log)
	}
	// The same work may be queued again: its key went with it.
	if err := f.kind.Enqueue(ctx, "remind|b2", reminderTo{}); err != nil {
		t.Fatal(err)
	}
	if s, _ := f.q.Summarize(ctx); s.Waiting != 1 {
		t.Errorf("the work queued again: %+v", s.Counts)
	}
}

// Bad ids are 404s that write nothing, and so is a repair of a task
// someone else repaired first.
func TestBadTaskIDsAre404(t *testing.T) {
	t.Parallel()
	_, boss, f := newTasksApp(t)
	dead := f.dead(t, "")
	ref := dead.Ref()
	for _, bad := range []string{"garbage", "t" + ref[1:], ref + strings.Repeat("0", 300), ref[:len(ref)-1], url.PathEscape("d|" + ref[2:21] + "|" + dead.ID)} {
		for _, action := range []string{"retry", "discard"} {
			res := boss.PostForm("/admin/tasks/"+bad+"/"+action, boss.WithCSRF("/admin/tasks", url.Values{"confirm": {"yes"}}))
			if res.StatusCode != http.StatusNotFound || res.Writes(t) != 0 {
				t.Errorf("%s %q: %d, %d writes", action, bad, res.StatusCode, res.Writes(t))
			}
		}
	}
	if got, _ := f.q.Dead(ctx, 10); len(got) != 1 {
		t.Errorf("%d dead tasks left, want 1", len(got))
	}
}

// raceOnTasks changes the row a batch on the Tasks table deletes just
// before the batch runs, once armed: another admin's repair landing
// between this one's read and its write.
type raceOnTasks struct {
	storage.Backend
	armed *atomic.Bool
}

func (r raceOnTasks) Transact(ctx context.Context, table string, ops []storage.TxOp) error {
	if table == tasks.Table && len(ops) > 0 && ops[0].Kind == storage.TxDelete && r.armed.CompareAndSwap(true, false) {
		e := storage.Entity{PartitionKey: ops[0].Entity.PartitionKey, RowKey: ops[0].Entity.RowKey, Props: map[string]any{"touched": true}}
		if _, err := r.Backend.Update(ctx, table, e, storage.Merge, storage.AnyETag); err != nil {
			return err
		}
	}
	return r.Backend.Transact(ctx, table, ops)
}

// A repair at a stale ETag loses: a 409 that says so, and nothing moved.
func TestAStaleRepairIsAConflict(t *testing.T) {
	t.Parallel()
	armed := &atomic.Bool{}
	a := newAdminAppOn(t, map[string]string{"ADMIN_EMAILS": bossEmail}, func(b storage.Backend) storage.Backend { return raceOnTasks{b, armed} })
	boss := a.Client()
	a.SignIn(boss, bossEmail)
	f := newFlakyReminders(t, a)
	dead := f.dead(t, "")
	armed.Store(true)
	res := boss.PostForm("/admin/tasks/"+dead.Ref()+"/retry", boss.WithCSRF("/admin/tasks", nil))
	if res.StatusCode != http.StatusConflict || !strings.Contains(res.Body, "changed while you were looking") {
		t.Errorf("a stale run again: %d", res.StatusCode)
	}
	if s, _ := f.q.Summarize(ctx); s.Dead != 1 || s.Waiting+s.Retrying != 0 {
		t.Errorf("a stale run again moved the task: %+v", s.Counts)
	}
	if log, _ := a.svc.RecentLog(ctx, 10); len(log) != 0 {
		t.Errorf("a refused repair was logged: %+v", log)
	}
}

// The counts are right for a mix of waiting, running, retrying and dead
// tasks, and the list of the soonest shows who runs one.
func TestTheTasksPageCountsEachState(t *testing.T) {
	t.Parallel()
	a, boss, f := newTasksApp(t)
	f.dead(t, "")
	f.dead(t, "")
	// One retrying: failed once.
	f.kind.Enqueue(ctx, "", reminderTo{})
	f.q.RunDue(ctx)
	// Two waiting, one of them later; one running: claimed by a drain
	// that is still at it (blocked in its handler).
	later := a.Clock.Now().Add(time.Hour)
	f.kind.EnqueueAt(ctx, later, "", reminderTo{})
	f.kind.EnqueueAt(ctx, later.Add(time.Minute), "", reminderTo{})
	slow := tasks.New(a.Store, slog.New(slog.NewTextHandler(io.Discard, nil)), tasks.Options{Now: a.Clock.Now, Holder: "web-slow"})
	started, release := make(chan struct{}), make(chan struct{})
	slowKind, _ := tasks.Register(slow, "store.back", func(context.Context, reminderTo) error {
		close(started)
		<-release
		return nil
	})
	slowKind.Enqueue(ctx, "", reminderTo{})
	done := make(chan struct{})
	go func() { slow.RunDue(ctx); close(done) }()
	<-started
	defer func() { close(release); <-done }()

	doc := boss.Get("/admin/tasks").Doc(t)
	for state, want := range map[string]string{"waiting": "2", "retrying": "1", "running": "1", "dead": "2"} {
		if got := doc.Find(testID("tasks-total-"+state) + " strong").Text(); got != want {
			t.Errorf("%s: %q, want %s", state, got, want)
		}
	}
	if got := doc.Find(testID("tasks-due-now")).Text(); got != "Due now: 0" {
		t.Errorf("due now %q", got)
	}
	if got := doc.Find(testID("task-running")).Text(); got != "Running on web-slow" {
		t.Errorf("running %q", got)
	}
	if n := doc.Find(testID("tasks-soonest") + " " + testID("task-row")).Length(); n != 4 {
		t.Errorf("%d tasks listed as next, want 4", n)
	}
	if got := doc.Find(testID("tasks-kind-row") + `[data-kind="store.back"] [data-state="running"]`).Text(); got != "1" {
		t.Errorf("store.back running %q", got)
	}
}

// An empty queue says so, and a bad cursor is a 400.
func TestTheTasksPageEmpty(t *testing.T) {
	t.Parallel()
	a := newAdminApp(t)
	boss := a.Client()
	a.SignIn(boss, bossEmail)
	a.Mail() // the sign-in code's mail is sent
	doc := boss.Get("/admin/tasks").Doc(t)
	for _, id := range []string{"tasks-soonest-empty", "tasks-dead-empty"} {
		if doc.Find(testID(id)).Length() != 1 {
			t.Errorf("no %s", id)
		}
	}
	if res := boss.Get("/admin/tasks?cursor=junk"); res.StatusCode != http.StatusBadRequest {
		t.Errorf("bad cursor: %d", res.StatusCode)
	}
}

// The dead list pages newest first with the shared pager: htmx gets the
// next rows only.
func TestTheDeadListPages(t *testing.T) {
	t.Parallel()
	a, boss, f := newTasksApp(t)
	for range deadPageSize + 2 {
		if err := f.kind.Enqueue(ctx, "", reminderTo{}); err != nil {
			t.Fatal(err)
		}
	}
	for range 3 {
		f.q.RunDue(ctx)
		a.Clock.Advance(2 * time.Minute)
	}
	doc := boss.Get("/admin/tasks").Doc(t)
	if n := doc.Find(testID("dead-task-row")).Length(); n != deadPageSize {
		t.Fatalf("%d dead rows on the first page", n)
	}
	next, _ := doc.Find(testID("load-more")).Attr("href")
	if !strings.HasPrefix(next, "/admin/tasks?cursor=") {
		t.Fatalf("load more %q", next)
	}
	more := boss.Get(next, htmx()...).Doc(t)
	if n := more.Find(testID("dead-task-row")).Length(); n != 2 || more.Find(testID("tasks-summary")).Length() != 0 {
		t.Errorf("the next chunk: %d rows", n)
	}
	if plain := boss.Get(next).Doc(t); plain.Find(testID("tasks-summary")).Length() != 0 || plain.Find(testID("dead-task-row")).Length() != 2 {
		t.Error("the plain next page")
	}
}

func TestRelativeTimes(t *testing.T) {
	t.Parallel()
	cat, err := i18n.New()
	if err != nil {
		t.Fatal(err)
	}
	en, ru := i18n.WithLocalizer(t.Context(), cat.For(i18n.EN)), i18n.WithLocalizer(t.Context(), cat.For(i18n.RU))
	for _, tc := range []struct {
		d      time.Duration
		en, ru string
	}{
		{30 * time.Second, "now", "сейчас"},
		{-5 * time.Minute, "5 minutes ago", "5 минут назад"},
		{2 * time.Hour, "in 2 hours", "через 2 часа"},
		{-72 * time.Hour, "3 days ago", "3 дня назад"},
	} {
		if got := relativeTime(en, tc.d); got != tc.en {
			t.Errorf("en %v: %q", tc.d, got)
		}
		if got := relativeTime(ru, tc.d); got != tc.ru {
			t.Errorf("ru %v: %q", tc.d, got)
		}
	}
}
