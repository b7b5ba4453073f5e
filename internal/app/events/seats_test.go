package events

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/harmony/harmony/internal/memberdata"
	"github.com/harmony/harmony/internal/storage"
	"github.com/harmony/harmony/internal/storage/storetest"
)

func newSeats(t testing.TB, store *storage.Store) *Seats {
	t.Helper()
	if err := store.Provision(t.Context(), []string{AttendeesTable, UserEventsTable, memberdata.FootprintsTable}, nil); err != nil {
		t.Fatal(err)
	}
	return NewSeats(store, nil, time.Now)
}

// check holds the counter to the rows: seats taken and people waiting
// are exactly what the registrations say.
func check(t *testing.T, s *Seats, event string) SeatsRow {
	t.Helper()
	c, err := s.Counts(t.Context(), event)
	if err != nil {
		t.Fatal(err)
	}
	rows, err := s.Attendees(t.Context(), event)
	if err != nil {
		t.Fatal(err)
	}
	going, waiting, offered, offers, pending := 0, 0, 0, 0, 0
	for _, r := range rows {
		switch r.Status {
		case StatusPending:
			pending++
		case StatusGoing:
			going += r.Party
		case StatusWaitlist:
			waiting++
		case StatusOffered:
			offered += r.Party
			offers++
		}
	}
	queue, _ := s.Waitlist(t.Context(), event)
	offerRows, _ := storage.All[OfferRow](t.Context(), s.table, storage.Query{PartitionKey: event, RowKeyPrefix: offerPrefix})
	if c.Going != going || c.Waiting != waiting || len(queue) != waiting || c.Offered != offered || len(offerRows) != offers ||
		c.Pending != pending || c.Capacity > 0 && c.Going+c.Offered > c.Capacity {
		t.Fatalf("counter %d going, %d waiting, %d offered, %d pending (capacity %d); rows %d going, %d waiting, %d offered, %d pending; queue %d, offers %d",
			c.Going, c.Waiting, c.Offered, c.Pending, c.Capacity, going, waiting, offered, pending, len(queue), len(offerRows))
	}
	return c
}

func TestSeats(t *testing.T) {
	t.Parallel()
	for name, open := range storetest.Backends(t) {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			t.Run("FIFOAndPromotion", func(t *testing.T) { seatsFIFO(t, newSeats(t, open(t))) })
			t.Run("Parties", func(t *testing.T) { seatsParties(t, newSeats(t, open(t))) })
			t.Run("Capacity", func(t *testing.T) { seatsCapacity(t, newSeats(t, open(t))) })
			t.Run("Concurrency", func(t *testing.T) { seatsConcurrency(t, newSeats(t, open(t))) })
			t.Run("Offers", func(t *testing.T) { seatsOffers(t, newSeats(t, open(t))) })
			t.Run("Approval", func(t *testing.T) { seatsApproval(t, newSeats(t, open(t))) })
		})
	}
}

func register(t *testing.T, s *Seats, event, who string, party int) Registration {
	t.Helper()
	r, _, err := s.Register(t.Context(), event, Person{MemberKey: who}, party)
	if err != nil {
		t.Fatalf("register %s: %v", who, err)
	}
	return r
}

func seatsFIFO(t *testing.T, s *Seats) {
	ctx := t.Context()
	if err := s.Open(ctx, "e1", Plan{Capacity: 2}); err != nil {
		t.Fatal(err)
	}
	for _, who := range []string{"a", "b"} {
		if r := register(t, s, "e1", who, 1); r.Status != StatusGoing {
			t.Fatalf("%s: %+v", who, r)
		}
	}
	if r := register(t, s, "e1", "c", 1); r.Status != StatusWaitlist || r.Position != 1 {
		t.Fatalf("c: %+v", r)
	}
	if r := register(t, s, "e1", "d", 1); r.Status != StatusWaitlist || r.Position != 2 {
		t.Fatalf("d: %+v", r)
	}
	if r := register(t, s, "e1", "c", 1); r.Status != StatusWaitlist {
		t.Fatalf("registering again changed c: %+v", r)
	}
	moves, err := s.Cancel(ctx, "e1", "b")
	if promoted := moves.Promoted; err != nil || fmt.Sprint(promoted) != "[c]" {
		t.Fatalf("b cancels: moved %+v, %v", moves, err)
	}
	if r := register(t, s, "e1", "d", 1); r.Status != StatusWaitlist || r.Position != 1 {
		t.Fatalf("d moved up to %+v", r)
	}
	// Registering again after cancelling goes to the end of the line.
	if r := register(t, s, "e1", "b", 1); r.Status != StatusWaitlist || r.Position != 2 {
		t.Fatalf("b again: %+v", r)
	}
	if _, err := s.Cancel(ctx, "e1", "nobody"); err != ErrNotRegistered {
		t.Fatalf("cancel by a stranger: %v", err)
	}
	check(t, s, "e1")
	// My events follows: c was promoted, d waits, and a cancelled
	// registration leaves no row.
	mine := func(who string) string {
		rows, err := s.Mine(ctx, who)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, r := range rows {
			out = append(out, r.RowKey+":"+r.Status)
		}
		return fmt.Sprint(out)
	}
	if mine("c") != "[e1:going]" || mine("d") != "[e1:waitlist]" {
		t.Fatalf("my events: c %s, d %s", mine("c"), mine("d"))
	}
	s.Cancel(ctx, "e1", "d")
	if mine("d") != "[]" {
		t.Fatalf("d after cancelling: %s", mine("d"))
	}
	// A lost mirror write is what the rebuild puts back.
	if err := s.userEvents.Delete(ctx, "c", "e1", storage.AnyETag); err != nil {
		t.Fatal(err)
	}
	if rep, err := s.RebuildUserEvents(ctx); err != nil || rep.Written != 1 || mine("c") != "[e1:going]" {
		t.Fatalf("rebuild: %v %v, c %s", rep, err, mine("c"))
	}
}

func seatsParties(t *testing.T, s *Seats) {
	ctx := t.Context()
	if err := s.Open(ctx, "e2", Plan{Capacity: 3}); err != nil {
		t.Fatal(err)
	}
	register(t, s, "e2", "a", 2) // one seat left
	if r := register(t, s, "e2", "b", 3); r.Status != StatusWaitlist {
		t.Fatalf("a party of 3 into one seat: %+v", r)
	}
	// One seat is free, but b waits: c waits behind b.
	if r := register(t, s, "e2", "c", 1); r.Status != StatusWaitlist || r.Position != 2 {
		t.Fatalf("c with someone waiting: %+v", r)
	}
	// Three free: b, at the head, goes; c still waits (no seat left).
	if m, _ := s.Cancel(ctx, "e2", "a"); fmt.Sprint(m.Promoted) != "[b]" {
		t.Fatalf("moved %+v", m)
	}
	if err := s.Open(ctx, "e4", Plan{Capacity: 3}); err != nil {
		t.Fatal(err)
	}
	register(t, s, "e4", "a", 2)
	register(t, s, "e4", "d", 1) // full
	register(t, s, "e4", "b", 3)
	register(t, s, "e4", "c", 1)
	// One seat frees: b at the head needs three, and c does not jump it.
	if m, _ := s.Cancel(ctx, "e4", "d"); len(m.Promoted) != 0 {
		t.Fatalf("promoted %v into one seat", m.Promoted)
	}
	for _, bad := range []int{0, -1, MaxParty + 1} {
		if _, _, err := s.Register(ctx, "e2", Person{MemberKey: "z"}, bad); err != ErrBadParty {
			t.Fatalf("party %d: %v", bad, err)
		}
	}
	check(t, s, "e2")
	check(t, s, "e4")
}

func seatsCapacity(t *testing.T, s *Seats) {
	ctx := t.Context()
	if err := s.Open(ctx, "e3", Plan{Capacity: 1}); err != nil {
		t.Fatal(err)
	}
	for _, who := range []string{"a", "b", "c", "d"} {
		register(t, s, "e3", who, 1)
	}
	moves, err := s.SetPlan(ctx, "e3", Plan{Capacity: 3})
	if err != nil || fmt.Sprint(moves.Promoted) != "[b c]" {
		t.Fatalf("raise: %+v %v", moves, err)
	}
	if _, err := s.SetPlan(ctx, "e3", Plan{Capacity: 2}); err != ErrCapacityBelowGoing {
		t.Fatalf("lower below the seats taken: %v", err)
	}
	if c := check(t, s, "e3"); c.Capacity != 3 || c.Going != 3 || c.Waiting != 1 {
		t.Fatalf("after a refused lowering: %+v", c)
	}
}

// seatsConcurrency: 200 registrations at once for 50 seats give exactly
// 50 going and 150 waiting, numbered without gaps; then 20 going people
// cancelling at once promote exactly the first 20 waiting.
func seatsConcurrency(t *testing.T, s *Seats) {
	ctx := context.Background()
	if err := s.Open(ctx, "rush", Plan{Capacity: 50}); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	errs := make(chan error, 200)
	for i := range 200 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, _, err := s.Register(ctx, "rush", Person{MemberKey: fmt.Sprintf("p%03d", i)}, 1); err != nil {
				errs <- err
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatalf("a registration failed: %v", err)
	}
	c := check(t, s, "rush")
	if c.Going != 50 || c.Waiting != 150 {
		t.Fatalf("%d going and %d waiting, want 50 and 150", c.Going, c.Waiting)
	}
	rows, _ := s.Attendees(ctx, "rush")
	var seqs []int64
	var going []string
	for _, r := range rows {
		if r.Status == StatusWaitlist {
			seqs = append(seqs, r.Seq)
		} else {
			going = append(going, r.MemberKey)
		}
	}
	slices.Sort(seqs)
	for i, seq := range seqs {
		if seq != int64(i) {
			t.Fatalf("waitlist numbers %v… are not 0..149", seqs[:min(10, len(seqs))])
		}
	}
	before, _ := s.Waitlist(ctx, "rush")
	promotedCh := make(chan []string, 20)
	for _, who := range going[:20] {
		wg.Add(1)
		go func() {
			defer wg.Done()
			m, err := s.Cancel(ctx, "rush", who)
			if err != nil {
				t.Errorf("cancel %s: %v", who, err)
			}
			promotedCh <- m.Promoted
		}()
	}
	wg.Wait()
	close(promotedCh)
	var promoted []string
	for p := range promotedCh {
		promoted = append(promoted, p...)
	}
	slices.Sort(promoted)
	want := slices.Clone(before[:20])
	slices.Sort(want)
	if fmt.Sprint(promoted) != fmt.Sprint(want) {
		t.Fatalf("promoted %v, want the first 20 waiting %v", promoted, want)
	}
	if c := check(t, s, "rush"); c.Going != 50 || c.Waiting != 130 {
		t.Fatalf("after 20 cancellations: %d going, %d waiting", c.Going, c.Waiting)
	}
	// Everyone's "My events" agrees with their registration.
	rows, _ = s.Attendees(ctx, "rush")
	for _, r := range rows {
		mine, err := s.Mine(ctx, r.MemberKey)
		if err != nil {
			t.Fatal(err)
		}
		want := "[]"
		if r.Status != StatusCancelled {
			want = "[" + r.Status + "]"
		}
		var got []string
		for _, m := range mine {
			got = append(got, m.Status)
		}
		if fmt.Sprint(got) != want {
			t.Fatalf("%s: my events %v, registration %s", r.MemberKey, got, r.Status)
		}
	}
}

// seatsOffers: in offer mode a freed seat is offered to the head of the
// waitlist until the hold ends, held from newcomers meanwhile; taking it
// makes them going, declining offers it on; an offer is judged lapsed
// when read after its time (no job needed) and the next person is
// offered; offers never run past their end, after which seats are given
// directly; a capacity under the seats taken and offered is refused.
func seatsOffers(t *testing.T, s *Seats) {
	ctx := t.Context()
	t0 := time.Date(2030, 6, 1, 10, 0, 0, 0, time.UTC)
	now := t0
	s.now = func() time.Time { return now }
	state := func(event, who string) Registration {
		t.Helper()
		r, err := s.Status(ctx, event, who)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	if err := s.Open(ctx, "o1", Plan{Capacity: 1, OfferHold: 2 * time.Hour, OffersEnd: t0.Add(48 * time.Hour)}); err != nil {
		t.Fatal(err)
	}
	for _, who := range []string{"a", "b", "c"} {
		register(t, s, "o1", who, 1)
	}
	m, err := s.Cancel(ctx, "o1", "a")
	if err != nil || len(m.Offered) != 1 || m.Offered[0].MemberKey != "b" || !m.Offered[0].Until.Equal(t0.Add(2*time.Hour)) || len(m.Promoted) != 0 {
		t.Fatalf("a cancels: %+v %v", m, err)
	}
	if r := state("o1", "b"); r.Status != StatusOffered || !r.OfferUntil.Equal(t0.Add(2*time.Hour)) {
		t.Fatalf("b: %+v", r)
	}
	// The seat is held for b: a newcomer waits behind c.
	if r := register(t, s, "o1", "d", 1); r.Status != StatusWaitlist || r.Position != 2 {
		t.Fatalf("d while the seat is offered: %+v", r)
	}
	check(t, s, "o1")
	now = t0.Add(time.Hour)
	if _, _, err := s.Accept(ctx, "o1", "b"); err != nil {
		t.Fatalf("b takes the seat: %v", err)
	}
	if r := state("o1", "b"); r.Status != StatusGoing {
		t.Fatalf("b after taking it: %+v", r)
	}
	if _, _, err := s.Accept(ctx, "o1", "c"); err != ErrNoOffer {
		t.Fatalf("c takes a seat nobody offered: %v", err)
	}
	// b declines after all: c is offered the seat.
	if m, _ := s.Cancel(ctx, "o1", "b"); len(m.Offered) != 1 || m.Offered[0].MemberKey != "c" {
		t.Fatalf("b gives it up: %+v", m)
	}
	check(t, s, "o1")
	// c never answers. Past the hold, the first read judges the offer
	// lapsed and offers the seat to d; no job ran.
	now = t0.Add(3*time.Hour + time.Second)
	c, moves, err := s.Judge(ctx, "o1")
	if err != nil || fmt.Sprint(moves.Expired) != "[c]" || len(moves.Offered) != 1 || moves.Offered[0].MemberKey != "d" || c.Offered != 1 {
		t.Fatalf("judged after the hold: %+v %+v %v", c, moves, err)
	}
	if r := state("o1", "c"); r.Status != StatusCancelled {
		t.Fatalf("c after the lapse: %+v", r)
	}
	if _, _, err := s.Accept(ctx, "o1", "c"); err != ErrOfferLapsed {
		t.Fatalf("c takes the lapsed seat: %v", err)
	}
	if _, moves, _ := s.Judge(ctx, "o1"); len(moves.Expired)+len(moves.Offered) != 0 {
		t.Fatalf("a second read moved %+v", moves)
	}
	check(t, s, "o1")

	// Offers end three hours before the start: an offer made now runs to
	// then, not for its full day, and after that seats are given.
	if err := s.Open(ctx, "o2", Plan{Capacity: 1, OfferHold: 24 * time.Hour, OffersEnd: now.Add(3 * time.Hour)}); err != nil {
		t.Fatal(err)
	}
	for _, who := range []string{"a", "b", "c"} {
		register(t, s, "o2", who, 1)
	}
	end := now.Add(3 * time.Hour)
	if m, _ := s.Cancel(ctx, "o2", "a"); len(m.Offered) != 1 || !m.Offered[0].Until.Equal(end) {
		t.Fatalf("an offer near the end: %+v", m)
	}
	now = end.Add(time.Second)
	if _, moves, _ := s.Judge(ctx, "o2"); fmt.Sprint(moves.Expired) != "[b]" || fmt.Sprint(moves.Promoted) != "[c]" || len(moves.Offered) != 0 {
		t.Fatalf("after offers ended: %+v", moves)
	}
	if r := state("o2", "c"); r.Status != StatusGoing {
		t.Fatalf("c after offers ended: %+v", r)
	}
	check(t, s, "o2")

	// Seats offered count as taken: the capacity cannot go under them.
	plan := Plan{Capacity: 2, OfferHold: time.Hour, OffersEnd: now.Add(72 * time.Hour)}
	if err := s.Open(ctx, "o3", plan); err != nil {
		t.Fatal(err)
	}
	for _, who := range []string{"a", "b", "c"} {
		register(t, s, "o3", who, 1)
	}
	s.Cancel(ctx, "o3", "a") // c is offered a's seat
	plan.Capacity = 1
	if _, err := s.SetPlan(ctx, "o3", plan); err != ErrCapacityBelowGoing {
		t.Fatalf("capacity under the seats taken and offered: %v", err)
	}
	check(t, s, "o3")
}

// seatsApproval: with approval on, registering asks (no seat, no ticket
// row, Pending counted); approving places the request as registering
// would (a seat, then the end of the waitlist), declining ends it, and
// each refuses what is not a waiting request; approval cannot be turned
// off while requests wait. The counter matches the rows throughout.
func seatsApproval(t *testing.T, s *Seats) {
	ctx := t.Context()
	const ev = "approval"
	if err := s.Open(ctx, ev, Plan{Capacity: 1, Approval: true}); err != nil {
		t.Fatal(err)
	}
	for _, who := range []string{"ann", "bob", "carl"} {
		if r := register(t, s, ev, who, 1); r.Status != StatusPending {
			t.Fatalf("%s asks: %s", who, r.Status)
		}
	}
	if c := check(t, s, ev); c.Pending != 3 || c.Going != 0 {
		t.Fatalf("three asking: %+v", c)
	}
	if tickets, _ := storage.All[TicketRow](ctx, s.table, storage.Query{PartitionKey: ev, RowKeyPrefix: "t|"}); len(tickets) != 0 {
		t.Errorf("requests have %d tickets", len(tickets))
	}
	if _, err := s.SetPlan(ctx, ev, Plan{Capacity: 1}); err != ErrRequestsPending {
		t.Errorf("approval off with requests waiting: %v", err)
	}
	for _, c := range []struct {
		who  string
		want string
	}{{"ann", StatusGoing}, {"bob", StatusWaitlist}} {
		r, _, err := s.Approve(ctx, ev, c.who)
		if err != nil || r.Status != c.want || r.DecidedAt.IsZero() {
			t.Errorf("approve %s: %+v %v", c.who, r, err)
		}
		check(t, s, ev)
	}
	if a, _ := s.Attendee(ctx, ev, "ann"); a.Ticket == "" {
		t.Error("ann, approved, has no ticket")
	}
	if r, _, err := s.Decline(ctx, ev, "carl"); err != nil || r.Status != StatusCancelled || !r.Declined {
		t.Errorf("decline carl: %+v %v", r, err)
	}
	for _, c := range []struct {
		who  string
		want error
	}{{"ann", ErrDecided}, {"carl", ErrDecided}, {"dan", ErrNoRequest}, {"", ErrNoRequest}} {
		if _, _, err := s.Approve(ctx, ev, c.who); err != c.want {
			t.Errorf("approve %q: %v, want %v", c.who, err, c.want)
		}
	}
	if _, _, err := s.Register(ctx, ev, Person{MemberKey: "carl"}, 1); err != ErrDeclined {
		t.Errorf("carl asks again: %v", err)
	}
	// ann gives up her seat: bob, approved onto the waitlist, takes it.
	if moves, err := s.Cancel(ctx, ev, "ann"); err != nil || len(moves.Promoted) != 1 || moves.Promoted[0] != "bob" {
		t.Errorf("ann cancels: %+v %v", moves, err)
	}
	if c := check(t, s, ev); c.Pending != 0 || c.Going != 1 {
		t.Errorf("after the decisions: %+v", c)
	}
	if _, err := s.SetPlan(ctx, ev, Plan{Capacity: 1}); err != nil {
		t.Errorf("approval off: %v", err)
	}
	if _, _, err := s.Approve(ctx, ev, "dan"); err != ErrNoApproval {
		t.Errorf("approve without approval: %v", err)
	}
	check(t, s, ev)
}
