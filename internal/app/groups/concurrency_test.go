package groups

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/harmony/harmony/internal/fault"
	"github.com/harmony/harmony/internal/storage"
)

// between is a store on which a test runs another request at a chosen
// moment of one: just before that request writes an appointment's blob
// or a row, the way a second person's request on another instance lands
// in between. What runs may also refuse the write: the process stopping
// there.
type between struct {
	storage.Backend
	mu   sync.Mutex
	when func(op string) bool
	do   func() error
}

// once arms b: the next call when matches (op is "blob NAME", or "tx",
// "insert", "update", "upsert", "delete" or "query" and the table) runs do first,
// and fails with its error if it returns one.
func (b *between) once(when func(op string) bool, do func() error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.when, b.do = when, do
}

// before runs do ahead of the next write when matches.
func (b *between) before(when func(op string) bool, do func()) {
	b.once(when, func() error { do(); return nil })
}

// refuse fails the next write when matches.
func (b *between) refuse(when func(op string) bool) {
	b.once(when, func() error { return storage.ErrTransient })
}

func (b *between) fire(op string) error {
	b.mu.Lock()
	do := b.do
	if do == nil || !b.when(op) {
		b.mu.Unlock()
		return nil
	}
	b.when, b.do = nil, nil
	b.mu.Unlock()
	return do()
}

func (b *between) PutBlob(ctx context.Context, c, name string, data []byte, ct, ifMatch string) (string, error) {
	if err := b.fire("blob " + name); err != nil {
		return "", err
	}
	return b.Backend.PutBlob(ctx, c, name, data, ct, ifMatch)
}

func (b *between) Insert(ctx context.Context, table string, e storage.Entity) (string, error) {
	if err := b.fire("insert " + table); err != nil {
		return "", err
	}
	return b.Backend.Insert(ctx, table, e)
}

func (b *between) Transact(ctx context.Context, table string, ops []storage.TxOp) error {
	if err := b.fire("tx " + table); err != nil {
		return err
	}
	return b.Backend.Transact(ctx, table, ops)
}

func (b *between) Update(ctx context.Context, table string, e storage.Entity, mode storage.UpdateMode, ifMatch string) (string, error) {
	if err := b.fire("update " + table); err != nil {
		return "", err
	}
	return b.Backend.Update(ctx, table, e, mode, ifMatch)
}

func (b *between) Upsert(ctx context.Context, table string, e storage.Entity, mode storage.UpdateMode) (string, error) {
	if err := b.fire("upsert " + table); err != nil {
		return "", err
	}
	return b.Backend.Upsert(ctx, table, e, mode)
}

func (b *between) Query(ctx context.Context, table string, q storage.Query) (storage.Page, error) {
	if err := b.fire("query " + table); err != nil {
		return storage.Page{}, err
	}
	return b.Backend.Query(ctx, table, q)
}

func (b *between) Delete(ctx context.Context, table, pk, rk, ifMatch string) error {
	if err := b.fire("delete " + table); err != nil {
		return err
	}
	return b.Backend.Delete(ctx, table, pk, rk, ifMatch)
}

func newBetweenApp(t *testing.T) (*groupsApp, *between) {
	t.Helper()
	b := &between{}
	a := newGroupsAppOn(t, func(inner storage.Backend) storage.Backend { b.Backend = inner; return b })
	return a, b
}

// pairWith is ann's group with bob (joinedPair), ann's membership, and
// the appointment ann makes there by in.
func pairWith(t *testing.T, a *groupsApp, in AppointmentInput) (ann, bob person, m Membership, doc Appointment) {
	t.Helper()
	ann, bob, id := joinedPair(t, a)
	m, _, _ = a.svc.Open(ctx, id, ann.id, AccessMember)
	doc, err := a.svc.CreateAppointment(ctx, m, ann.id, in, time.UTC)
	if err != nil {
		t.Fatal(err)
	}
	return ann, bob, m, doc
}

// dentist is the appointment most of these tests change.
var dentist = AppointmentInput{Title: "Dentist", Start: "2030-06-01T10:00", End: "2030-06-01T11:00"}

// participantsOf reads an appointment: its participants' memberKeys, and
// the list of them its blob keeps.
func participantsOf(t *testing.T, a *groupsApp, m Membership, appointmentID string) (got, who []string) {
	t.Helper()
	d, err := a.svc.Appointment(ctx, m, appointmentID)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range d.Participants {
		got = append(got, p.MemberKey)
	}
	return got, d.Doc.Who
}

func writing(name string) func(string) bool {
	return func(op string) bool { return op == "blob "+name }
}

// Two people take two dates out of one series at the same moment: both
// dates are gone. (The series' list of removed dates used to be written
// from each one's read, so the second write brought the first date back.)
func TestTwoDatesRemovedAtOnceAreBothGone(t *testing.T) {
	t.Parallel()
	a, b := newBetweenApp(t)
	ann, m, berlin, doc := training(t, a)
	tuesday, thursday := "20300326160000Z", "20300328160000Z" // 17:00 in Berlin
	b.before(writing(appointmentBlobName(m.GroupID, doc.AppointmentID)), func() {
		if err := a.svc.DeleteOccurrences(ctx, m, ann.id, doc.AppointmentID, ScopeThis, thursday); err != nil {
			t.Errorf("thursday: %v", err)
		}
	})
	if err := a.svc.DeleteOccurrences(ctx, m, ann.id, doc.AppointmentID, ScopeThis, tuesday); err != nil {
		t.Fatalf("tuesday: %v", err)
	}
	rows, err := a.svc.Between(ctx, m, time.Date(2030, 3, 24, 0, 0, 0, 0, berlin), time.Date(2030, 3, 31, 0, 0, 0, 0, berlin))
	if err != nil {
		t.Fatal(err)
	}
	if got := startsIn(rows, berlin); len(got) != 0 {
		t.Errorf("that week still shows %q", got)
	}
	if _, err := a.svc.Occurrence(ctx, m, doc.AppointmentID, tuesday); !errors.Is(err, ErrNoOccurrence) {
		t.Errorf("tuesday's page: %v, want not found", err)
	}
}

// Two people cancel two dates of one series at the same moment: both
// show cancelled, and neither shows twice.
func TestTwoDatesCancelledAtOnceAreBothCancelled(t *testing.T) {
	t.Parallel()
	a, b := newBetweenApp(t)
	ann, m, berlin, doc := training(t, a)
	series := appointmentBlobName(m.GroupID, doc.AppointmentID)
	b.before(writing(series), func() {
		if err := a.svc.CancelOccurrence(ctx, m, ann.id, doc.AppointmentID, "20300328160000Z"); err != nil {
			t.Errorf("thursday: %v", err)
		}
	})
	if err := a.svc.CancelOccurrence(ctx, m, ann.id, doc.AppointmentID, "20300326160000Z"); err != nil {
		t.Fatalf("tuesday: %v", err)
	}
	rows, err := a.svc.Between(ctx, m, time.Date(2030, 3, 24, 0, 0, 0, 0, berlin), time.Date(2030, 3, 31, 0, 0, 0, 0, berlin))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range rows {
		got = append(got, r.StartTime.In(berlin).Format("Mon 15:04 ")+r.Status)
	}
	if want := []string{"Tue 17:00 canceled", "Thu 17:00 canceled"}; !slices.Equal(got, want) {
		t.Errorf("that week shows %q, want %q", got, want)
	}
}

// Someone deletes an appointment while another person's edit of it,
// moving it to another day, is on its way: it stays deleted, the edit
// is told it is gone, and no list shows it at either time.
func TestAnEditDoesNotBringBackWhatWasDeleted(t *testing.T) {
	t.Parallel()
	a, b := newBetweenApp(t)
	ann, bob, m, doc := pairWith(t, a, dentist)
	id := m.GroupID
	b.before(writing(appointmentBlobName(id, doc.AppointmentID)), func() {
		if err := a.svc.DeleteAppointment(ctx, m, ann.id, doc.AppointmentID); err != nil {
			t.Errorf("delete: %v", err)
		}
	})
	bm, _, _ := a.svc.Open(ctx, id, bob.id, AccessMember)
	_, err := a.svc.UpdateAppointment(ctx, bm, bob.id, doc.AppointmentID, AppointmentInput{Title: "Dentist, later", Start: "2030-06-02T10:00", End: "2030-06-02T11:00"}, time.UTC)
	if !errors.Is(err, ErrNoAppointment) {
		t.Errorf("the edit: %v, want not found", err)
	}
	rows, err := a.svc.Between(ctx, m, time.Date(2030, 5, 1, 0, 0, 0, 0, time.UTC), time.Date(2030, 7, 1, 0, 0, 0, 0, time.UTC))
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 0 {
		t.Errorf("the calendar shows %q", startsIn(rows, time.UTC))
	}
	if res := bob.c.Get("/groups/" + id + "/appointments/" + doc.AppointmentID); res.StatusCode != http.StatusNotFound {
		t.Errorf("its page: %d, want 404", res.StatusCode)
	}
	live := 0
	for _, r := range a.indexRows(t, id) {
		if !r.IsDeleted {
			live++
		}
	}
	if live != 0 {
		t.Errorf("%d index rows not deleted", live)
	}
}

// Two edits of one appointment's participants cross: the one saved
// first reaches its participants' transaction last. The page then names
// the participants of the edit that was saved last, not a mix and not
// the older set.
func TestCrossingEditsLeaveTheLastOnesParticipants(t *testing.T) {
	t.Parallel()
	a, b := newBetweenApp(t)
	ann, bob, m, doc := pairWith(t, a, AppointmentInput{Title: "Picnic", Start: "2030-06-01T10:00", End: "2030-06-01T11:00"})
	edit := func(who []string) AppointmentInput {
		return AppointmentInput{Title: "Picnic", Start: "2030-06-01T10:00", End: "2030-06-01T11:00", Participants: who}
	}
	b.before(to("tx", participantsTable), func() {
		if _, err := a.svc.UpdateAppointment(ctx, m, bob.id, doc.AppointmentID, edit([]string{bob.id.MemberKey}), time.UTC); err != nil {
			t.Errorf("bob's edit: %v", err)
		}
	})
	if _, err := a.svc.UpdateAppointment(ctx, m, ann.id, doc.AppointmentID, edit([]string{ann.id.MemberKey}), time.UTC); err != nil {
		t.Fatalf("ann's edit: %v", err)
	}
	got, who := participantsOf(t, a, m, doc.AppointmentID)
	if !slices.Equal(got, who) || !slices.Equal(got, []string{bob.id.MemberKey}) {
		t.Errorf("participants %q, the appointment names %q; want bob's edit's, saved last", got, who)
	}
}

// An edit that changes nothing among the participants still says which
// version they are: an older edit's participants, arriving after it,
// do not replace them.
func TestAnOlderEditsParticipantsDoNotLandLast(t *testing.T) {
	t.Parallel()
	a, b := newBetweenApp(t)
	ann, bob, id := joinedPair(t, a)
	m, _, _ := a.svc.Open(ctx, id, ann.id, AccessMember)
	edit := func(who string) AppointmentInput {
		return AppointmentInput{Title: "Picnic", Start: "2030-06-01T10:00", End: "2030-06-01T11:00", Participants: []string{who}}
	}
	doc, err := a.svc.CreateAppointment(ctx, m, ann.id, edit(ann.id.MemberKey), time.UTC)
	if err != nil {
		t.Fatal(err)
	}
	b.before(to("tx", participantsTable), func() {
		// Bob puts ann back: the rows name her already.
		if _, err := a.svc.UpdateAppointment(ctx, m, bob.id, doc.AppointmentID, edit(ann.id.MemberKey), time.UTC); err != nil {
			t.Errorf("bob's edit: %v", err)
		}
	})
	if _, err := a.svc.UpdateAppointment(ctx, m, ann.id, doc.AppointmentID, edit(bob.id.MemberKey), time.UTC); err != nil {
		t.Fatalf("ann's edit: %v", err)
	}
	got, who := participantsOf(t, a, m, doc.AppointmentID)
	if !slices.Equal(got, who) || !slices.Equal(got, []string{ann.id.MemberKey}) {
		t.Errorf("participants %q, the appointment names %q; want ann, as bob saved last", got, who)
	}
}

// The rebuild meets an appointment that is being moved as it repairs it:
// it leaves it as the move made it.
func TestTheRebuildLeavesAnAppointmentBeingChanged(t *testing.T) {
	t.Parallel()
	a, b := newBetweenApp(t)
	ann, _, m, doc := pairWith(t, a, dentist)
	// Between the rebuild's read of the blob and of its rows.
	b.before(to("query", appointmentsTable), func() {
		in := AppointmentInput{Title: "Dentist, later", Start: "2030-06-02T10:00", End: "2030-06-02T11:00"}
		if _, err := a.svc.UpdateAppointment(ctx, m, ann.id, doc.AppointmentID, in, time.UTC); err != nil {
			t.Errorf("the move: %v", err)
		}
	})
	a.rebuild(t)
	rows, err := a.svc.Between(ctx, m, time.Date(2030, 6, 1, 0, 0, 0, 0, time.UTC), time.Date(2030, 7, 1, 0, 0, 0, 0, time.UTC))
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 1 || rows[0].Title != "Dentist, later" || rows[0].StartTime.Day() != 2 {
		t.Errorf("after the rebuild June shows %q", startsIn(rows, time.UTC))
	}
}

// A change that keeps losing the race is answered 409 "try again", and
// is no failed precondition that a caller would run again.
func TestAChangeThatKeepsLosingIsBusy(t *testing.T) {
	t.Parallel()
	tries := 0
	err := retryStale(ctx, func() error { tries++; return storage.ErrPrecondition })
	if !errors.Is(err, ErrBusy) || errors.Is(err, storage.ErrPrecondition) || tries != staleTries {
		t.Errorf("after %d tries: %v", tries, err)
	}
	if f, ok := errors.AsType[*fault.Error](err); !ok || f.Status() != http.StatusConflict {
		t.Errorf("%v is no 409", err)
	}
}
