package groups

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/harmony/harmony/internal/auth"
	"github.com/harmony/harmony/internal/storage"
	"github.com/harmony/harmony/internal/storage/azure"
	"github.com/harmony/harmony/internal/storage/embedded"
	"github.com/harmony/harmony/internal/storage/storagetest"
	"github.com/harmony/harmony/internal/storage/storetest"
)

// BenchmarkMonthView measures a month of a group's calendar (issue 11):
// the two range reads, the expansion of the series and the layout into
// days, for a group with 10 appointments (one of them a weekly series)
// and one with 5,000 (50 of them series: weekly and every other day),
// the singles spread over ten years, as a busy family's would be. It
// reports p50 and p90 per month, and the storage calls, on the embedded
// store and, with HARMONY_AZURITE set, on Azurite. The goal is a
// p50 within 1.5× of the small group's. docs/PERFORMANCE.md has the
// figures and the command (scripts/bench groups).
func BenchmarkMonthView(b *testing.B) {
	for _, backend := range storetest.BenchBackends() {
		for _, n := range []int{10, 5000} {
			b.Run(fmt.Sprintf("%s/appointments=%d", backend, n), func(b *testing.B) {
				benchMonth(b, backend, n)
			})
		}
	}
}

func benchMonth(b *testing.B, backend string, n int) {
	svc, m := benchGroup(b, backend, n)
	zone, _ := time.LoadLocation("Europe/Berlin")
	first := time.Date(2030, 6, 1, 0, 0, 0, 0, zone)
	start, days := MonthGrid(first)
	storetest.BenchPages(b, "month", func(ctx context.Context) (int, error) {
		rows, err := svc.Between(ctx, m, start, start.AddDate(0, 0, days))
		shown := 0
		for _, d := range CalendarDays(rows, start, days, zone) {
			shown += len(d)
		}
		return shown, err
	})
}

// benchGroup makes a group with n appointments on a fresh store (embedded,
// or tables of its own on Azurite):
// n/100 series (at least one) and the rest single ones over ten years.
func benchGroup(b *testing.B, kind string, n int) (*Service, Membership) {
	b.Helper()
	var backend storage.Backend
	var err error
	prefix := ""
	if kind == "azurite" {
		backend, err = azure.Open(b.Context(), storagetest.AzuriteConnectionString(b))
		prefix = fmt.Sprintf("b%d%d", n, time.Now().UnixNano()%1e9) // tables of their own
	} else {
		backend, err = embedded.Open(b.TempDir(), embedded.Options{NoSync: true})
	}
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { backend.Close() })
	store := storage.New(backend, storage.Options{Prefix: prefix})
	cursors, _ := storage.NewCursors(make([]byte, 32))
	now := func() time.Time { return time.Date(2030, 5, 17, 9, 30, 0, 0, time.UTC) }
	svc := New(store, nil, cursors, "http://localhost", slog.New(slog.NewTextHandler(io.Discard, nil)), now)
	ctx := context.Background()
	if err := store.Provision(ctx, svc.Tables(), []string{GroupBlobsContainer}); err != nil {
		b.Fatal(err)
	}
	owner := &auth.Identity{MemberKey: "auth:bench", UserKey: auth.UserKey("bench@example.com"), Email: "bench@example.com", DisplayName: "Bench"}
	g, err := svc.Create(ctx, owner, "Bench family")
	if err != nil {
		b.Fatal(err)
	}
	m := Membership{GroupID: g.GroupID}
	series := max(1, n/100)
	zone, _ := time.LoadLocation("Europe/Berlin")
	from := time.Date(2025, 1, 1, 0, 0, 0, 0, zone)
	for i := range n {
		in := AppointmentInput{Title: fmt.Sprintf("Appointment %d", i)}
		start := from.Add(time.Duration(i) * (10 * 365 * 24 * time.Hour / time.Duration(n)))
		start = time.Date(start.Year(), start.Month(), start.Day(), 8+i%10, 0, 0, 0, zone)
		if i < series {
			start = time.Date(2030, 1, 1+i%28, 7+i%12, 0, 0, 0, zone)
			in.Repeat = RepeatInput{Freq: RepeatWeekly}
			if i%2 == 1 {
				in.Repeat = RepeatInput{Freq: RepeatDaily, Interval: "2"}
			}
		}
		in.Start, in.End = start.Format(FormTimeLayout), start.Add(time.Hour).Format(FormTimeLayout)
		if _, err := svc.CreateAppointment(ctx, m, owner, in, zone); err != nil {
			b.Fatal(err)
		}
	}
	return svc, m
}
