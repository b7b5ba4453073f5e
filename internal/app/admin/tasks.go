package admin

import (
	"context"
	"errors"
	"fmt"
	"math"
	"net/http"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/labstack/echo/v4"

	"github.com/harmony/harmony/internal/auth"
	"github.com/harmony/harmony/internal/fault"
	"github.com/harmony/harmony/internal/i18n"
	"github.com/harmony/harmony/internal/storage"
	"github.com/harmony/harmony/internal/tasks"
	"github.com/harmony/harmony/internal/web"
	views "github.com/harmony/harmony/views/admin"
)

// The background tasks page (/admin/tasks), as Sidekiq's is Discourse's:
// how much of the queue waits, what is being run, what keeps failing, and
// the tasks that failed for good (a member's account deletion among them),
// each of which an admin runs again or discards. It shows no payload
// (they hold addresses and people's words), only its size.

const (
	tasksURL = "/admin/tasks"
	// soonestShown is how many of the tasks due soonest the page lists.
	soonestShown = 50
	// deadPageSize is how many dead tasks a page lists.
	deadPageSize = 25
	// deadListQuery names the dead list for its cursors.
	deadListQuery = "admin/tasks/dead"
	// errorShown is how much of a last error a row shows before "more".
	errorShown = 120
)

// TaskQueue is what the tasks page needs of the task queue.
type TaskQueue interface {
	Summarize(ctx context.Context) (tasks.Summary, error)
	Soonest(ctx context.Context, n int) ([]tasks.TaskRow, error)
	DeadPage(ctx context.Context, from *storage.Continuation, n int) ([]tasks.TaskRow, *storage.Continuation, error)
	DeadTask(ctx context.Context, ref string) (tasks.TaskRow, error)
	RetryDead(ctx context.Context, ref string) (tasks.TaskRow, error)
	RetryDeadOfKind(ctx context.Context, kind string, most int) (int, error)
	DiscardDead(ctx context.Context, ref string) (tasks.TaskRow, error)
}

// UseTasks shows q, the app's task queue, on /admin/tasks.
func (s *Service) UseTasks(q TaskQueue) { s.tasks = q }

// Errors of the repairs of a dead task; nothing was written.
var (
	ErrNoTask      = fault.New(http.StatusNotFound, "admin.tasks.error.gone", "admin: no such dead task")
	ErrTaskChanged = fault.New(http.StatusConflict, "admin.tasks.error.changed", "admin: the dead task changed meanwhile")
)

// Log actions of the repairs.
const (
	actionTaskRetry     = "tasks.retry"
	actionTaskRetryKind = "tasks.retry_kind"
	actionTaskDiscard   = "tasks.discard"
	targetTask          = "task"
)

// TasksPage is what /admin/tasks shows: on the first page the summary
// and the tasks due soonest, then a page of the dead ones.
type TasksPage struct {
	Summary *tasks.Summary
	Soonest []tasks.TaskRow
	Dead    []tasks.TaskRow
	Next    *storage.Continuation
}

// Tasks reads the page of the dead tasks from from (nil: the first page,
// which also has the summary and the tasks due soonest).
func (s *Service) Tasks(ctx context.Context, from *storage.Continuation) (TasksPage, error) {
	if s.tasks == nil {
		return TasksPage{}, web.NotFound(nil)
	}
	var p TasksPage
	var err error
	if from == nil {
		sum, err := s.tasks.Summarize(ctx)
		if err != nil {
			return TasksPage{}, err
		}
		p.Summary = &sum
		if p.Soonest, err = s.tasks.Soonest(ctx, soonestShown); err != nil {
			return TasksPage{}, err
		}
	}
	p.Dead, p.Next, err = s.tasks.DeadPage(ctx, from, deadPageSize)
	return p, err
}

// RetryTask runs again the dead task ref names, for actor, and logs it.
// An actor without a member key is an operator at the command line (web
// tasks retry): the log says so.
func (s *Service) RetryTask(ctx context.Context, actor Actor, ref string) (tasks.TaskRow, error) {
	return s.repairTask(ctx, actor, ref, actionTaskRetry, s.tasks.RetryDead)
}

// retryKindMost bounds one "Run all again" of a kind: the rest wait for
// the next press.
const retryKindMost = 500

// RetryKind runs again the dead tasks of kind (retryKindMost at the
// most, newest first), for actor, and logs it once with how many:
// ErrNoTask when none of that kind failed for good (a kind that is no
// kind's name included).
func (s *Service) RetryKind(ctx context.Context, actor Actor, kind string) (int, error) {
	if s.tasks == nil || !tasks.ValidKind(kind) {
		return 0, ErrNoTask
	}
	n, err := s.tasks.RetryDeadOfKind(ctx, kind, retryKindMost)
	if n > 0 {
		entry := LogRow{Actor: actor.MemberKey, ActorName: actor.Name, Action: actionTaskRetryKind, TargetType: targetTask, TargetKey: kind, TargetName: fmt.Sprintf("%s (%d)", kind, n)}
		if logErr := s.appendLog(ctx, entry); logErr != nil {
			err = errors.Join(err, logErr)
		}
		s.logger.InfoContext(ctx, "admin: dead tasks of a kind run again", "kind", kind, "tasks", n)
	}
	switch {
	case err != nil:
		return n, err
	case n == 0:
		return 0, ErrNoTask
	}
	return n, nil
}

// DiscardTask deletes the dead task ref names, for actor, and logs it.
func (s *Service) DiscardTask(ctx context.Context, actor Actor, ref string) (tasks.TaskRow, error) {
	return s.repairTask(ctx, actor, ref, actionTaskDiscard, s.tasks.DiscardDead)
}

// repairTask does one repair of the dead task ref names and logs it: the
// log names the task by its kind and id, never its payload.
func (s *Service) repairTask(ctx context.Context, actor Actor, ref, action string, repair func(context.Context, string) (tasks.TaskRow, error)) (tasks.TaskRow, error) {
	if s.tasks == nil {
		return tasks.TaskRow{}, ErrNoTask
	}
	t, err := repair(ctx, ref)
	switch {
	case errors.Is(err, tasks.ErrNoTask):
		return tasks.TaskRow{}, ErrNoTask
	case errors.Is(err, tasks.ErrChanged):
		return tasks.TaskRow{}, ErrTaskChanged
	case err != nil:
		return tasks.TaskRow{}, err
	}
	entry := LogRow{Actor: actor.MemberKey, ActorName: actor.Name, Action: action, TargetType: targetTask, TargetKey: t.ID, TargetName: t.Kind + " " + t.ID}
	if err := s.appendLog(ctx, entry); err != nil {
		return t, err
	}
	s.logger.InfoContext(ctx, "admin: dead task repaired", "action", action, "kind", t.Kind, "task", t.ID)
	return t, nil
}

// taskTool is the overview's card of the queue with its counts: how many
// wait, retry and failed for good, and a badge while any failed (one
// Summarize: two queries while the queue is small).
func (s *Service) taskTool(ctx context.Context, card views.Tool) (views.Tool, error) {
	if s.tasks == nil {
		return card, nil
	}
	sum, err := s.tasks.Summarize(ctx)
	if err != nil {
		return card, err
	}
	card.Note = i18n.T(ctx, "admin.tasks.tool_counts",
		"waiting", countText(ctx, sum.Waiting+sum.Running, sum.MoreWaiting),
		"retrying", countText(ctx, sum.Retrying, sum.MoreWaiting),
		"dead", countText(ctx, sum.Dead, sum.MoreDead))
	if sum.Dead > 0 {
		card.Alert = i18n.N(ctx, "admin.tasks.tool_failed", sum.Dead)
	}
	return card, nil
}

// tasksPage is GET /admin/tasks[?cursor=…]; htmx's "load more" gets the
// next dead tasks.
func (h *handlers) tasksPage(c echo.Context) error {
	ctx := c.Request().Context()
	pager := web.Pager{Cursors: h.svc.cursors, Query: deadListQuery, URL: tasksURL}
	from, err := pager.Start(c)
	if err != nil {
		return err
	}
	p, err := h.svc.Tasks(ctx, from)
	if err != nil {
		return err
	}
	now, zone := h.svc.now(), auth.From(c).Location()
	props := views.TasksProps{First: from == nil, NextURL: pager.NextURL(p.Next), SoonestMost: soonestShown}
	if p.Summary != nil {
		props.Summary = summaryView(ctx, *p.Summary)
	}
	for _, t := range p.Soonest {
		props.Soonest = append(props.Soonest, taskItem(ctx, t, now, zone))
	}
	for _, t := range p.Dead {
		props.Dead = append(props.Dead, taskItem(ctx, t, now, zone))
	}
	return web.Render(c, http.StatusOK, web.Page{
		Title:    i18n.T(ctx, "admin.tasks.heading"),
		Section:  "admin",
		Content:  views.Tasks(props),
		Fragment: views.DeadTasksChunk(props.Dead, props.NextURL),
	})
}

// retryTask is POST /admin/tasks/:task/retry: the dead task runs again
// now. htmx gets its row saying so; a plain form the page with a flash.
func (h *handlers) retryTask(c echo.Context) error {
	id := auth.From(c)
	t, err := h.svc.RetryTask(c.Request().Context(), Actor{MemberKey: id.MemberKey, Name: id.DisplayName}, c.Param("task"))
	if err != nil {
		return err
	}
	return h.repaired(c, t, "admin.tasks.done.retried")
}

// retryKind is POST /admin/tasks/kinds/:kind/retry, after a
// confirmation: the dead tasks of the kind run again, and the page says
// so.
func (h *handlers) retryKind(c echo.Context) error {
	ctx := c.Request().Context()
	kind := c.Param("kind")
	if !web.Confirmed(c) {
		if !tasks.ValidKind(kind) {
			return ErrNoTask
		}
		return web.AskConfirm(c, views.RetryKindConfirm(ctx, kindLabel(ctx, kind)))
	}
	id := auth.From(c)
	if _, err := h.svc.RetryKind(ctx, Actor{MemberKey: id.MemberKey, Name: id.DisplayName}, kind); err != nil {
		return err
	}
	return web.FlashRedirect(c, "admin.tasks.done.retried_kind", tasksURL+"#summary-heading")
}

// kindLabel names kind as the page does: its description and the kind.
func kindLabel(ctx context.Context, kind string) string {
	return views.TaskItem{Kind: kind, Name: kindName(ctx, kind)}.Label()
}

// discardTask is POST /admin/tasks/:task/discard, after a confirmation:
// the dead task is deleted.
func (h *handlers) discardTask(c echo.Context) error {
	ctx := c.Request().Context()
	if !web.Confirmed(c) {
		t, err := h.svc.deadTask(ctx, c.Param("task"))
		if err != nil {
			return err
		}
		it := taskItem(ctx, t, h.svc.now(), auth.From(c).Location())
		return web.AskConfirm(c, views.DiscardTaskConfirm(ctx, it.Label()))
	}
	id := auth.From(c)
	t, err := h.svc.DiscardTask(ctx, Actor{MemberKey: id.MemberKey, Name: id.DisplayName}, c.Param("task"))
	if err != nil {
		return err
	}
	return h.repaired(c, t, "admin.tasks.done.discarded")
}

// deadTask is the dead task ref names, for the confirmation's question.
func (s *Service) deadTask(ctx context.Context, ref string) (tasks.TaskRow, error) {
	if s.tasks == nil {
		return tasks.TaskRow{}, ErrNoTask
	}
	t, err := s.tasks.DeadTask(ctx, ref)
	if errors.Is(err, tasks.ErrNoTask) {
		return t, ErrNoTask
	}
	return t, err
}

// repaired answers a repair of t: htmx gets t's row saying what was done
// (doneKey), a plain form the page with it as a flash.
func (h *handlers) repaired(c echo.Context, t tasks.TaskRow, doneKey string) error {
	if !web.HTMXFrom(c).Partial {
		return web.FlashRedirect(c, doneKey, tasksURL+"#dead-heading")
	}
	ctx := c.Request().Context()
	it := taskItem(ctx, t, h.svc.now(), auth.From(c).Location())
	it.Done = i18n.T(ctx, doneKey)
	return web.RenderFragment(c, http.StatusOK, views.DeadTaskItem(it))
}

// summaryView is s as the page shows it, each kind named.
func summaryView(ctx context.Context, s tasks.Summary) *views.TaskSummary {
	counts := func(c tasks.Counts) views.TaskCounts {
		return views.TaskCounts{
			Waiting:  countText(ctx, c.Waiting, s.MoreWaiting),
			Retrying: countText(ctx, c.Retrying, s.MoreWaiting),
			Running:  countText(ctx, c.Running, s.MoreWaiting),
			Dead:     countText(ctx, c.Dead, s.MoreDead),
		}
	}
	out := &views.TaskSummary{Total: counts(s.Counts), DueNow: countText(ctx, s.DueNow, s.MoreWaiting), Partial: s.MoreWaiting || s.MoreDead}
	for _, k := range s.Kinds {
		row := views.TaskKindCounts{Kind: k.Kind, Name: kindName(ctx, k.Kind), Counts: counts(k.Counts)}
		if k.Counts.Dead > 0 && tasks.ValidKind(k.Kind) {
			row.RetryURL = tasksURL + "/kinds/" + k.Kind + "/retry"
		}
		out.Kinds = append(out.Kinds, row)
	}
	return out
}

// countText is n as the page shows a count: "5,000+" when the count
// stopped at tasks.MaxCounted rows and n reached it.
func countText(ctx context.Context, n int, capped bool) string {
	if capped && n >= tasks.MaxCounted {
		return i18n.T(ctx, "admin.tasks.more_than", "n", n)
	}
	return i18n.T(ctx, "admin.tasks.count", "n", n)
}

// kindName is a kind's description ("Email to send"), "" for a kind the
// catalog does not describe.
func kindName(ctx context.Context, kind string) string {
	key := "admin.tasks.kind." + kind
	if name := i18n.T(ctx, key); name != key {
		return name
	}
	return ""
}

// taskItem is t as a row shows it, times in zone; never its payload.
func taskItem(ctx context.Context, t tasks.TaskRow, now time.Time, zone *time.Location) views.TaskItem {
	it := views.TaskItem{
		ID: t.ID, Kind: t.Kind, Name: kindName(ctx, t.Kind), Attempts: t.Attempts, Key: t.Key,
		When: i18n.DateTime(ctx, t.Due.In(zone)), WhenISO: t.Due.In(zone).Format(time.RFC3339), Relative: relativeTime(ctx, t.Due.Sub(now)),
		Size:      sizeText(ctx, len(t.Payload)),
		LastError: t.LastError, ErrorShort: shorten(t.LastError, errorShown),
		Dead: t.Dead,
	}
	if t.Running(now) {
		it.Holder = t.Holder
		if it.Holder == "" {
			it.Holder = "?"
		}
	}
	if t.Dead {
		it.ActionURL = tasksURL + "/" + t.Ref()
	}
	return it
}

// relativeTime is d from now in words: "in 5 minutes", "2 hours ago".
func relativeTime(ctx context.Context, d time.Duration) string {
	ahead := d > 0
	if d < 0 {
		d = -d
	}
	var span string
	switch {
	case d < time.Minute:
		return i18n.T(ctx, "admin.tasks.rel.now")
	case d < time.Hour:
		span = i18n.N(ctx, "admin.tasks.rel.minutes", int(d/time.Minute))
	case d < 48*time.Hour:
		span = i18n.N(ctx, "admin.tasks.rel.hours", int(d/time.Hour))
	default:
		span = i18n.N(ctx, "admin.tasks.rel.days", int(d/(24*time.Hour)))
	}
	if ahead {
		return i18n.T(ctx, "admin.tasks.rel.in", "span", span)
	}
	return i18n.T(ctx, "admin.tasks.rel.ago", "span", span)
}

// sizeText is a payload's size: bytes under a KiB, else KiB with a
// tenth.
func sizeText(ctx context.Context, n int) string {
	if n < 1024 {
		return i18n.N(ctx, "admin.tasks.size.bytes", n)
	}
	return i18n.T(ctx, "admin.tasks.size.kib", "n", math.Round(float64(n)/1024*10)/10)
}

// shorten is s's first line cut to n runes, with "…" when anything was
// left out; "" when nothing was.
func shorten(s string, n int) string {
	line, _, multi := strings.Cut(s, "\n")
	if !multi && utf8.RuneCountInString(s) <= n {
		return ""
	}
	if utf8.RuneCountInString(line) > n {
		line = string([]rune(line)[:n])
	}
	return strings.TrimSpace(line) + "…"
}
