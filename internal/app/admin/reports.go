package admin

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"time"

	"github.com/harmony/harmony/internal/app/inbox"
	"github.com/harmony/harmony/internal/fault"
	"github.com/harmony/harmony/internal/formrule"
	"github.com/harmony/harmony/internal/live"
	"github.com/harmony/harmony/internal/moderation"
	"github.com/harmony/harmony/internal/richtext"
	"github.com/harmony/harmony/internal/storage"
	"github.com/harmony/harmony/internal/storage/quota"
	"github.com/harmony/harmony/internal/web"
)

// The moderation queue: members report content (moderation.Report), the
// admins take it down or dismiss the report. One row per reported
// target, so a post reported by five people is one item with its five
// reasons, as Discourse's review queue shows it.
//
//	PK "open",          RK {rt(first report)}|{target id}  an open report
//	PK "open",          RK "t|"{target id}                 the RowKey of the
//	                                                        target's open report
//	PK "closed|yyyyMM", RK as the open one                 a report closed
//	                                                        that month
//
// A target's id is a hash of its kind and key, so any key fits. A
// target's row and its open report share a partition, so they are
// written together: a new report inserts both in one transaction (two
// reporters at once meet there: one of them joins the other's), and a
// close deletes both in one, after writing the closed copy (a close that
// stops before that leaves the report open, and closing it again
// finishes). No report is ever without its target row, or the other way.
const (
	reportsTable     = "Reports"
	reportQuotaTable = "ReportQuota"
	// PicturesContainer keeps a reported picture (moderation.Report's
	// Picture) while its report is open, as "{target id}.jpg".
	PicturesContainer = "report-pictures"
	openPartition     = "open"
	targetPrefix      = "t|"
	closedPrefix      = "closed|"
	// reportsPerDay is how many reports one person files in a day.
	reportsPerDay = 20
	// maxReporters is how many reporters a report names (so one person
	// reports a target once); past it reports are counted only.
	maxReporters = 100
	// maxNotes is how many of the reporters' notes a report keeps, newest.
	maxNotes = 10
	// reportsPageSize is how many reports the queue shows a page.
	reportsPageSize    = 25
	reportsQuery       = "admin-reports"
	closedReportsQuery = "admin-reports-closed"
	// reportsURL is the queue's page.
	reportsURL = "/admin/reports"
)

// Resolutions of a closed report.
const (
	ResolutionTakenDown = "taken_down"
	ResolutionDismissed = "dismissed"
)

var (
	ErrNoReport = fault.New(http.StatusNotFound, "admin.reports.error.gone", "admin: no such open report")
	ErrNoSource = fault.New(http.StatusConflict, "admin.reports.error.no_source", "admin: no module takes down this kind")
)

// resolveNoteRule is the rule for the admin's note on a take-down.
var resolveNoteRule = formrule.Text{Max: 500, Multiline: true}

// ReportRow is one reported target's report.
type ReportRow struct {
	PartitionKey string    `table:"PartitionKey"` // openPartition or closed|yyyyMM
	RowKey       string    `table:"RowKey"`       // rt(FirstAt)|target id
	ETag         string    `table:"ETag"`
	Kind         string    `table:"kind"`
	Key          string    `table:"key"`
	Link         string    `table:"link"`
	Excerpt      string    `table:"excerpt"` // as first reported
	Author       string    `table:"author"`
	AuthorName   string    `table:"authorName"`
	Count        int       `table:"count"`
	Reasons      string    `table:"reasons"`   // JSON: reason → count
	Reporters    string    `table:"reporters"` // JSON: memberKeys, at most maxReporters
	Notes        string    `table:"notes"`     // JSON: []ReportNote, the newest maxNotes
	FirstAt      time.Time `table:"firstAt"`
	LastAt       time.Time `table:"lastAt"`
	// Resolution and the rest are set when it closes.
	Resolution     string     `table:"resolution"`
	ResolvedBy     string     `table:"resolvedBy"`
	ResolvedByName string     `table:"resolvedByName"`
	ResolvedAt     *time.Time `table:"resolvedAt"`
	ResolveNote    string     `table:"resolveNote"`
	// Scope is who besides the admins judges it (moderation.Report.Scope).
	Scope string `table:"scope"`
	// HasPicture: the reported picture is kept (PicturesContainer) while
	// the report is open.
	HasPicture bool `table:"hasPicture"`
}

// pictureName is the blob of report rk's picture: its target id.
func pictureName(rk string) string { return rk[20:] + ".jpg" }

// ReportNote is one reporter's reason and note, as the queue shows it.
type ReportNote struct {
	// Key is the reporter's memberKey ("" in notes kept before it was),
	// so that their deleting their account clears their name.
	Key    string    `json:"key,omitempty"`
	Name   string    `json:"name"`
	Reason string    `json:"reason"`
	Note   string    `json:"note,omitempty"`
	At     time.Time `json:"at"`
}

// ReasonCounts are a report's reasons with how many gave each, in
// moderation.Reasons order.
func (r ReportRow) ReasonCounts() []ReasonCount {
	var counts map[string]int
	_ = json.Unmarshal([]byte(r.Reasons), &counts) // a bad field reads as none
	var out []ReasonCount
	for _, reason := range moderation.Reasons {
		if n := counts[reason]; n > 0 {
			out = append(out, ReasonCount{Reason: reason, Count: n})
		}
	}
	return out
}

// ReasonCount is one reason and how many gave it.
type ReasonCount struct {
	Reason string
	Count  int
}

// NoteList are the reporters' notes kept, newest first.
func (r ReportRow) NoteList() []ReportNote {
	var notes []ReportNote
	_ = json.Unmarshal([]byte(r.Notes), &notes)
	return notes
}

// targetRow names a target's open report.
type targetRow struct {
	PartitionKey string `table:"PartitionKey"` // openPartition
	RowKey       string `table:"RowKey"`       // targetPrefix + target id
	ETag         string `table:"ETag"`
	Report       string `table:"report"` // the open report's RowKey
}

// targetID is a target's id in keys: hex of a hash of its kind and key.
func targetID(t moderation.Target) string {
	sum := sha256.Sum256([]byte(t.Kind + "\x00" + t.Key))
	return hex.EncodeToString(sum[:16])
}

// validReportKey accepts the RowKeys reports have: 19 digits, "|" and a
// target id.
func validReportKey(rk string) bool {
	if len(rk) != 19+1+32 || rk[19] != '|' {
		return false
	}
	for i, r := range rk {
		switch {
		case i < 19 && r >= '0' && r <= '9', i == 19:
		case i > 19 && (r >= '0' && r <= '9' || r >= 'a' && r <= 'f'):
		default:
			return false
		}
	}
	return true
}

// UseReportSources takes the modules whose content can be reported
// (platform.ReportQueue).
func (s *Service) UseReportSources(sources []moderation.Source) {
	s.sources, s.staffed = map[string]moderation.Source{}, nil
	for _, src := range sources {
		for _, kind := range src.ReportKinds() {
			s.sources[kind] = src
		}
		if st, ok := src.(moderation.Staffed); ok {
			s.staffed = append(s.staffed, st)
		}
	}
}

// Report files r: it joins the target's open report, or opens one. A
// person reports a target once while it is open (moderation.ErrAlreadyReported),
// never their own (moderation.ErrOwn), and at most reportsPerDay a day.
func (s *Service) Report(ctx context.Context, r moderation.Report) error {
	note, errs := moderation.Check(r.Reason, r.Note)
	if errs != nil {
		return errs
	}
	r.Note = note
	if r.By == "" || r.Kind == "" || r.Key == "" {
		return fmt.Errorf("admin: a report needs its reporter and target")
	}
	if r.By == r.Author {
		return moderation.ErrOwn
	}
	id := targetID(r.Target)
	// A report already filed is refused before the day's count is taken.
	if open, err := s.openReportOf(ctx, id); err != nil && !errors.Is(err, storage.ErrNotFound) {
		return err
	} else if err == nil && slices.Contains(reporters(open), r.By) {
		return moderation.ErrAlreadyReported
	}
	now := s.now().UTC()
	limit := quota.Limit{Table: s.reportQuota, Max: reportsPerDay, Window: 24 * time.Hour, Err: moderation.ErrTooMany}
	if err := limit.Take(ctx, r.By, now); err != nil {
		return err
	}
	for range storage.DefaultAttempts {
		t, err := storage.Get[targetRow](ctx, s.reports, openPartition, targetPrefix+id)
		if errors.Is(err, storage.ErrNotFound) {
			// The target's first report: its row and the report, at once.
			row := ReportRow{PartitionKey: openPartition, RowKey: storage.ReverseTicks(now) + "|" + id,
				Kind: r.Kind, Key: r.Key, Link: r.Link, Excerpt: r.Excerpt, Author: r.Author, AuthorName: r.AuthorName, FirstAt: now, Scope: r.Scope}
			if err := row.add(r, now); err != nil {
				return err
			}
			if row.HasPicture, err = s.keepPicture(ctx, r, row.RowKey); err != nil {
				return err
			}
			var tx storage.Tx
			err := tx.Insert(targetRow{PartitionKey: openPartition, RowKey: targetPrefix + id, Report: row.RowKey}).Insert(row).Commit(ctx, s.reports)
			if errors.Is(err, storage.ErrExists) {
				continue // someone reported it just now: join theirs
			}
			if err == nil {
				s.tellAdmins(context.WithoutCancel(ctx), r, row)
			}
			return err
		}
		if err != nil {
			return err
		}
		_, err = storage.Change(ctx, s.reports, openPartition, t.Report, errReportClosed, func(row *ReportRow) error { return row.add(r, now) })
		if errors.Is(err, errReportClosed) {
			// Closed just now (its target row went with it), or a target
			// row some tool left naming nothing: drop that, and this
			// report opens a new one.
			if err := s.reports.Delete(ctx, openPartition, t.RowKey, t.ETag); err != nil && !errors.Is(err, storage.ErrNotFound) && !errors.Is(err, storage.ErrPrecondition) {
				return err
			}
			continue
		}
		return err
	}
	return storage.ErrConflict
}

// keepPicture keeps r's picture, if it has one, for the report keyed rk
// (before the report is written, so a report never names one not kept);
// a picture gone meanwhile is none.
func (s *Service) keepPicture(ctx context.Context, r moderation.Report, rk string) (bool, error) {
	if r.Picture == nil {
		return false, nil
	}
	data, err := r.Picture(ctx)
	if errors.Is(err, storage.ErrNotFound) || err == nil && len(data) == 0 {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	_, err = s.pictures.Put(ctx, pictureName(rk), data, "image/jpeg")
	return err == nil, err
}

// errReportClosed is a target's open report closed between reading its
// target row and joining it.
var errReportClosed = errors.New("admin: the report closed meanwhile")

// add counts r, at now, in the report: its reporter (once), reason and
// note.
func (row *ReportRow) add(r moderation.Report, now time.Time) error {
	who := reporters(*row)
	if slices.Contains(who, r.By) {
		return moderation.ErrAlreadyReported
	}
	if len(who) < maxReporters {
		row.Reporters = jsonOf(append(who, r.By))
	}
	var counts map[string]int
	_ = json.Unmarshal([]byte(row.Reasons), &counts)
	if counts == nil {
		counts = map[string]int{}
	}
	counts[r.Reason]++
	row.Reasons = jsonOf(counts)
	notes := append([]ReportNote{{Key: r.By, Name: r.ByName, Reason: r.Reason, Note: r.Note, At: now}}, row.NoteList()...)
	row.Notes = jsonOf(notes[:min(len(notes), maxNotes)])
	row.Count++
	row.LastAt = now
	// The scope as the target stands now: a later report knows better
	// where it is (a topic moved since the first).
	row.Scope = r.Scope
	return nil
}

// Rescope takes the open reports of kind whose target key starts with
// prefix to scope, for a source whose content moved (a forum topic to
// another section, whose moderators then judge its posts' reports, and
// the old section's no longer may): one filtered query of the open
// partition and a write per report moved (moderation.Queue).
func (s *Service) Rescope(ctx context.Context, kind, prefix, scope string) error {
	q := storage.Query{PartitionKey: openPartition, RowKeyTo: targetPrefix, Filters: []storage.Filter{
		{Name: "kind", Op: storage.Eq, Value: kind},
		{Name: "key", Op: storage.Ge, Value: prefix},
		{Name: "key", Op: storage.Lt, Value: storage.PrefixEnd(prefix)},
	}}
	rows, err := storage.All[ReportRow](ctx, s.reports, q)
	if err != nil {
		return err
	}
	for _, r := range rows {
		if r.Scope == scope {
			continue
		}
		_, err := storage.Modify(ctx, s.reports, openPartition, r.RowKey, func(row *ReportRow, exists bool) error {
			if !exists || row.Scope == scope {
				return storage.ErrNoChange // closed meanwhile, or moved
			}
			row.Scope = scope
			return nil
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// UseFeed lets a closed report tell the admins' open pages, whose admin
// link then counts one report less (web.AdminBadgeTopic). Call it while
// wiring; without it the count falls on their next page.
func (s *Service) UseFeed(f *live.Feed) { s.feed = f }

// UseNotifier tells the admins of each newly reported target through n:
// those who hold the role, and those configured (ADMIN_EMAILS), by
// address. Call it while wiring.
func (s *Service) UseNotifier(n inbox.Poster, configured []string) {
	s.notifier, s.configured = n, configured
}

// tellAdmins tells the admins, but the reporter, that r opened a report
// (row): once a target, as Discourse's review queue does, and so its
// scope's reviewers (review.go). The notice names what was reported and
// its author, not who reported it.
func (s *Service) tellAdmins(ctx context.Context, r moderation.Report, row ReportRow) {
	if s.notifier == nil {
		return
	}
	admins, err := s.accounts.Admins(ctx)
	if err != nil {
		s.logger.WarnContext(ctx, "admin: admins not read for a report", "report", row.RowKey, "err", err)
		return
	}
	var to []inbox.Recipient
	seen, told := map[string]bool{}, map[string]bool{}
	for _, a := range admins {
		seen[a.Email], told[a.RowKey] = true, true
		if a.RowKey != r.By {
			to = append(to, inbox.Recipient{MemberKey: a.RowKey})
		}
	}
	s.tellReviewers(ctx, r, row, told)
	for _, email := range s.configured {
		if !seen[email] {
			to = append(to, inbox.Recipient{Email: email})
		}
	}
	if err := s.notifier.Post(ctx, reportNotice(r, row, to, "admin.notify.report", reportsURL, "admin.report|")); err != nil {
		s.logger.WarnContext(ctx, "admin: admins not told of a report", "report", row.RowKey, "err", err)
	}
}

// reportNotice (of kind) tells to that r opened report row, which they
// judge at desk; key tells it from the other notices of the report.
func reportNotice(r moderation.Report, row ReportRow, to []inbox.Recipient, kind, desk, key string) inbox.Notice {
	return inbox.Notice{
		To:    to,
		Kind:  kind,
		Args:  map[string]string{"author": r.AuthorName, "preview": richtext.Plain(r.Excerpt, 140)},
		Names: map[string]string{"author": r.Author},
		When:  row.FirstAt,
		Link:  desk,
		Key:   key + row.RowKey,
	}
}

// openReportOf reads the open report of the target id (ErrNotFound for
// none).
func (s *Service) openReportOf(ctx context.Context, id string) (ReportRow, error) {
	t, err := storage.Get[targetRow](ctx, s.reports, openPartition, targetPrefix+id)
	if err != nil {
		return ReportRow{}, err
	}
	return storage.Get[ReportRow](ctx, s.reports, openPartition, t.Report)
}

func reporters(r ReportRow) []string {
	var who []string
	_ = json.Unmarshal([]byte(r.Reporters), &who)
	return who
}

func jsonOf(v any) string {
	b, _ := json.Marshal(v) // maps, slices and strings always marshal
	return string(b)
}

// ReportsPage is one page of the open reports, newest first.
type ReportsPage struct {
	Reports []ReportRow
	Next    string // the next page's cursor token; "" on the last
}

// OpenReports lists the open reports from cursor.
func (s *Service) OpenReports(ctx context.Context, cursor *storage.Cursor) (ReportsPage, error) {
	q := storage.Query{PartitionKey: openPartition, RowKeyTo: targetPrefix}
	if cursor != nil {
		q.Continuation = cursor.Next
	}
	rows, next, err := storage.TakePage[ReportRow](ctx, s.reports, q, reportsPageSize)
	if err != nil || next == nil {
		return ReportsPage{Reports: rows}, err
	}
	return ReportsPage{Reports: rows, Next: s.token(reportsQuery, &storage.Cursor{Next: next})}, nil
}

// closedMonths is how far back the closed reports list.
const closedMonths = 12

// ClosedReports lists the reports closed in the last closedMonths months
// from cursor: month by month, newest month first, and in a month by
// their first report, newest first.
func (s *Service) ClosedReports(ctx context.Context, cursor *storage.Cursor) (ReportsPage, error) {
	entities, next, err := s.walkMonths(ctx, s.reports, closedPrefix, closedMonths, reportsPageSize, cursor)
	if err != nil {
		return ReportsPage{}, err
	}
	rows, err := storage.Decode[ReportRow](ctx, s.reports, entities)
	return ReportsPage{Reports: rows, Next: s.token(closedReportsQuery, next)}, err
}

// OpenReportCount counts the open reports, up to limit.
func (s *Service) OpenReportCount(ctx context.Context, limit int) (int, error) {
	rows, _, err := storage.Take[ReportRow](ctx, s.reports, storage.Query{PartitionKey: openPartition, RowKeyTo: targetPrefix, Select: []string{"RowKey"}}, limit)
	return len(rows), err
}

// TakeDown has the target's module take down what report rk names, then
// closes it; note is the admin's reason, logged with it.
func (s *Service) TakeDown(ctx context.Context, by Actor, rk, note string) error {
	return s.resolve(ctx, by, nil, rk, note, ResolutionTakenDown)
}

// Dismiss closes report rk with nothing taken down; note is the admin's
// reason, logged with it.
func (s *Service) Dismiss(ctx context.Context, by Actor, rk, note string) error {
	return s.resolve(ctx, by, nil, rk, note, ResolutionDismissed)
}

// resolve closes open report rk with resolution, taking its target down
// first for ResolutionTakenDown. scopes, unless nil (an admin), are the
// scopes by judges: a report of another is not found.
func (s *Service) resolve(ctx context.Context, by Actor, scopes []string, rk, note, resolution string) error {
	r, err := s.openReport(ctx, rk)
	if err != nil {
		return err
	}
	if scopes != nil && !slices.Contains(scopes, r.Scope) {
		return ErrNoReport // before the note: a refusal shows the report
	}
	errs := formrule.FieldErrors{}
	note = errs.Check("note", resolveNoteRule, note, "admin.reports.error.note")
	if len(errs) > 0 {
		return errs
	}
	if resolution == ResolutionTakenDown {
		src, ok := s.sources[r.Kind]
		if !ok {
			return ErrNoSource
		}
		// What is gone already needs no taking down: the report closes.
		err = src.TakeDown(ctx, moderation.Target{Kind: r.Kind, Key: r.Key}, moderation.Moderator{MemberKey: by.MemberKey, Name: by.Name}, note)
		if err != nil && !errors.Is(err, storage.ErrNotFound) {
			return err
		}
	}
	return s.closeReport(ctx, by, r, resolution, note)
}

// openReport reads open report rk: ErrNoReport for a key no report has.
func (s *Service) openReport(ctx context.Context, rk string) (ReportRow, error) {
	if !validReportKey(rk) {
		return ReportRow{}, ErrNoReport
	}
	return storage.Find[ReportRow](ctx, s.reports, openPartition, rk, ErrNoReport)
}

// closeReport moves r to its closed month with its resolution, in the
// order the table's comment gives, and logs it. The open report goes at
// the ETag r was read at: a report that joined it meanwhile makes the
// close start over from the report as it now is, so its reporter is in
// the history and thanked with the others.
func (s *Service) closeReport(ctx context.Context, by Actor, r ReportRow, resolution, note string) error {
	now := s.now().UTC()
	for attempt := 1; ; attempt++ {
		err := s.moveClosed(ctx, by, r, resolution, note, now)
		if !errors.Is(err, storage.ErrPrecondition) || attempt == storage.DefaultAttempts {
			if err != nil {
				return err
			}
			break
		}
		if r, err = s.openReport(ctx, r.RowKey); err != nil {
			return err
		}
	}
	if r.HasPicture {
		if err := s.pictures.Delete(context.WithoutCancel(ctx), pictureName(r.RowKey)); err != nil && !errors.Is(err, storage.ErrNotFound) {
			s.logger.WarnContext(ctx, "admin: a closed report's picture stays", "report", r.RowKey, "err", err)
		}
	}
	action := "report." + resolution
	if err := s.LogAction(ctx, by.MemberKey, by.Name, action, r.Kind, r.Key, r.AuthorName, note); err != nil {
		s.logger.ErrorContext(ctx, "admin: report's close not logged", "report", r.RowKey, "err", err)
	}
	if resolution == ResolutionTakenDown {
		s.tellReporters(ctx, r)
	}
	if s.feed != nil {
		s.feed.Publish(ctx, web.AdminBadgeTopic, nil) // the admins' open pages count again
	}
	return nil
}

// moveClosed writes r closed, then deletes it from the open partition
// at its ETag with its target row: ErrPrecondition when r changed
// meanwhile (the closed row is written again from the new one).
func (s *Service) moveClosed(ctx context.Context, by Actor, r ReportRow, resolution, note string, now time.Time) error {
	closed := r
	closed.PartitionKey, closed.ETag = closedPrefix+storage.MonthBucket(now), ""
	closed.Resolution, closed.ResolvedBy, closed.ResolvedByName, closed.ResolvedAt, closed.ResolveNote = resolution, by.MemberKey, by.Name, &now, note
	if _, err := storage.Upsert(ctx, s.reports, closed); err != nil {
		return err
	}
	// The report and its target row go together; a target row that
	// names another report (it cannot, but a tool may have written one)
	// stays.
	var tx storage.Tx
	tx.Delete(openPartition, r.RowKey, cmp.Or(r.ETag, storage.AnyETag))
	t, err := storage.Get[targetRow](ctx, s.reports, openPartition, targetPrefix+r.RowKey[20:])
	switch {
	case err == nil && t.Report == r.RowKey:
		tx.Delete(openPartition, t.RowKey, t.ETag)
	case err != nil && !errors.Is(err, storage.ErrNotFound):
		return err
	}
	if err := tx.Commit(ctx, s.reports); err != nil && !errors.Is(err, storage.ErrNotFound) {
		return err
	}
	return nil
}

// tellReporters tells who reported r, in their inbox alone, that the
// moderators took it down, as Discourse tells a flag's author it was
// agreed with: what they flagged, not who decided. A dismissal tells
// nobody.
func (s *Service) tellReporters(ctx context.Context, r ReportRow) {
	if s.notifier == nil {
		return
	}
	var to []inbox.Recipient
	for _, key := range reporters(r) {
		to = append(to, inbox.Recipient{MemberKey: key})
	}
	link := r.Link
	if link == "" {
		link = "/inbox" // a private chat's message: nothing to open
	}
	err := s.notifier.Post(context.WithoutCancel(ctx), inbox.Notice{
		To: to, Kind: "admin.notify.upheld", NoMail: true,
		Args:  map[string]string{"author": r.AuthorName, "preview": richtext.Plain(r.Excerpt, 140)},
		Names: map[string]string{"author": r.Author},
		When:  s.now().UTC(), Link: link, Key: "admin.upheld|" + r.RowKey,
	})
	if err != nil {
		s.logger.WarnContext(ctx, "admin: reporters not told of a take-down", "report", r.RowKey, "err", err)
	}
}
