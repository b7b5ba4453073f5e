package admin

import (
	"context"
	"net/http"
	"time"

	"github.com/harmony/harmony/internal/fault"
	"github.com/harmony/harmony/internal/platform"
	"github.com/harmony/harmony/internal/storage"
)

// Rebuilds run in the background. A rebuild of a large store takes longer
// than a proxy waits for an answer, and a request whose client went away
// is cancelled, which would stop a rebuild half way. So the button claims
// the subject's run row (one run at a time across every instance), starts
// the rebuild detached from the request and answers at once; the run row
// says how it went, on every instance. While it runs, its goroutine
// touches the row every runBeat; a row that says "running" but was not
// touched for runStale belongs to an instance that stopped, and the
// subject may run again. Every rebuild may be run again harmlessly.

// runsTable holds each rebuild subject's last run: PK runPart, RK the
// subject.
const runsTable = "Rebuilds"

const runPart = "run"

// Run states.
const (
	RunRunning = "running"
	RunDone    = "done"
	RunFailed  = "failed"
)

const (
	runBeat  = time.Minute
	runStale = 3 * runBeat
)

// RunRow is a rebuild's last run.
type RunRow struct {
	PartitionKey string     `table:"PartitionKey"` // runPart
	RowKey       string     `table:"RowKey"`       // the subject
	ETag         string     `table:"ETag"`
	State        string     `table:"state"`
	By           string     `table:"by"` // the admin's name
	StartedAt    time.Time  `table:"startedAt"`
	AliveAt      time.Time  `table:"aliveAt"`
	FinishedAt   *time.Time `table:"finishedAt"`
	// Report is what the rebuild did, or why it failed.
	Report string `table:"report"`
}

// Running says the run is going on now: running, and touched lately.
func (r RunRow) Running(now time.Time) bool {
	return r.State == RunRunning && now.Sub(r.AliveAt) < runStale
}

// ErrRebuildRunning refuses starting a rebuild that runs already (409).
var ErrRebuildRunning = fault.New(http.StatusConflict, "admin.rebuild.error.running", "admin: that rebuild is running")

// rebuilder is the rebuild named subject, or nil.
func (s *Service) rebuilder(subject string) platform.Rebuilder {
	for _, r := range s.rebuilds {
		if r.RebuildSubject() == subject {
			return r
		}
	}
	return nil
}

// StartRebuild starts the rebuild named subject in the background, for
// the admin named by: ErrNoRebuild for a subject the app does not have,
// ErrRebuildRunning while it runs already. One write to claim it.
func (s *Service) StartRebuild(ctx context.Context, subject, by string) error {
	r := s.rebuilder(subject)
	if r == nil {
		return ErrNoRebuild
	}
	now := s.now().UTC()
	_, err := storage.Modify(ctx, s.runs, runPart, subject, func(row *RunRow, _ bool) error {
		if row.Running(now) {
			return ErrRebuildRunning
		}
		*row = RunRow{State: RunRunning, By: by, StartedAt: now, AliveAt: now}
		return nil
	})
	if err != nil {
		return err
	}
	ctx = context.WithoutCancel(ctx) // keeps the request's id in the logs
	s.running.Add(1)
	go func() {
		defer s.running.Done()
		s.run(ctx, r)
	}()
	return nil
}

// run runs r, touching its row every runBeat, and records how it went.
func (s *Service) run(ctx context.Context, r platform.Rebuilder) {
	subject := r.RebuildSubject()
	stop := make(chan struct{})
	beat := time.NewTicker(runBeat)
	defer beat.Stop()
	go func() {
		for {
			select {
			case <-stop:
				return
			case <-beat.C:
				s.touchRun(ctx, subject, func(row *RunRow) { row.AliveAt = s.now().UTC() })
			}
		}
	}()
	report, err := r.Rebuild(ctx)
	close(stop)
	now := s.now().UTC()
	s.touchRun(ctx, subject, func(row *RunRow) {
		row.State, row.FinishedAt, row.AliveAt = RunDone, &now, now
		if err != nil {
			row.State, row.Report = RunFailed, err.Error()
			return
		}
		row.Report = report.String()
	})
	if err != nil {
		s.logger.ErrorContext(ctx, "admin: rebuild failed", "subject", subject, "err", err)
	}
}

// touchRun changes subject's run row with change.
func (s *Service) touchRun(ctx context.Context, subject string, change func(*RunRow)) {
	_, err := storage.Modify(ctx, s.runs, runPart, subject, func(row *RunRow, _ bool) error {
		change(row)
		return nil
	})
	if err != nil {
		s.logger.ErrorContext(ctx, "admin: rebuild run not recorded", "subject", subject, "err", err)
	}
}

// Runs reads every subject's last run (one query), by subject.
func (s *Service) Runs(ctx context.Context) (map[string]RunRow, error) {
	rows, err := storage.All[RunRow](ctx, s.runs, storage.Query{PartitionKey: runPart})
	if err != nil {
		return nil, err
	}
	out := make(map[string]RunRow, len(rows))
	for _, r := range rows {
		out[r.RowKey] = r
	}
	return out, nil
}

// waitRebuilds waits for the rebuilds this instance runs (tests).
func (s *Service) waitRebuilds() { s.running.Wait() }
