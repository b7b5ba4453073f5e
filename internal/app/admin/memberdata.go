package admin

import (
	"context"
	"strings"

	"github.com/harmony/harmony/internal/memberdata"
	"github.com/harmony/harmony/internal/storage"
)

// Deleting an account. Moderation history stays, with the member
// Forgotten in it: the reports they filed (their place among the
// reporters and their note's name), the reports about what they wrote
// (the target's author, and a key or link that named them), the reports
// they resolved as an admin, and the log's lines of what they did or
// what was done to them. Their count of reports for the day and their
// AI usage rows go; the day's totals by model (DailyUsageByModel) stay,
// as they name nobody, and so do the daily counts whose once-a-day marks
// of them go. Each row is rewritten at its ETag, found again
// by the next run if this one stops.

// exportedReport is a report the member filed, as their archive holds it.
type exportedReport struct {
	Kind   string `json:"kind"`
	Link   string `json:"link,omitempty"`
	Reason string `json:"reason"`
	Note   string `json:"note,omitempty"`
	At     string `json:"at"`
}

// ExportMember writes the reports m filed (their own note of each, as
// far as it is kept) and their AI usage by day into admin/.
func (s *Service) ExportMember(ctx context.Context, m memberdata.Member, to memberdata.Archive) error {
	filed := []exportedReport{}
	err := s.reports.QueryAll(ctx, storage.Query{Scan: true}, func(e storage.Entity) error {
		if who, _ := e.Props["reporters"].(string); !strings.Contains(who, `"`+m.Key+`"`) {
			return nil
		}
		var r ReportRow
		if err := storage.Unmarshal(e, &r); err != nil {
			return err
		}
		for _, n := range r.NoteList() {
			if n.Key == m.Key {
				filed = append(filed, exportedReport{Kind: r.Kind, Link: r.Link, Reason: n.Reason, Note: n.Note, At: n.At.UTC().Format("2006-01-02T15:04:05Z")})
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	if err := to.JSON("admin/reports.json", filed); err != nil {
		return err
	}
	usage := []UserUsageRow{}
	if m.UserKey != "" {
		if usage, err = storage.All[UserUsageRow](ctx, s.usage.users, storage.Query{PartitionKey: m.UserKey}); err != nil {
			return err
		}
	}
	type day struct {
		Day       string `json:"day"`
		Calls     int64  `json:"calls"`
		TokensIn  int64  `json:"tokens_in"`
		TokensOut int64  `json:"tokens_out"`
	}
	days := []day{}
	for _, u := range usage {
		days = append(days, day{Day: u.RowKey, Calls: u.Calls, TokensIn: u.TokensIn, TokensOut: u.TokensOut})
	}
	return to.JSON("admin/ai_usage.json", days)
}

// ForgetMember forgets m in the moderation records and the AI usage.
func (s *Service) ForgetMember(ctx context.Context, m memberdata.Member) error {
	if m.Key == "" || memberdata.IsForgotten(m.Key) {
		return nil
	}
	err := rewriteHolding(ctx, s.reports, m.Key, func(r *ReportRow) {
		if r.Author == m.Key {
			r.Author, r.AuthorName = memberdata.Forgotten, ""
		}
		if r.ResolvedBy == m.Key {
			r.ResolvedBy, r.ResolvedByName = memberdata.Forgotten, ""
		}
		r.Key = strings.ReplaceAll(r.Key, m.Key, memberdata.Forgotten)
		r.Link = strings.ReplaceAll(r.Link, m.Key, memberdata.Forgotten)
		if who := reporters(*r); len(who) > 0 {
			for i, k := range who {
				if k == m.Key {
					who[i] = memberdata.Forgotten
				}
			}
			r.Reporters = jsonOf(who)
		}
		if notes := r.NoteList(); len(notes) > 0 {
			for i, n := range notes {
				if n.Key == m.Key {
					notes[i].Key, notes[i].Name = memberdata.Forgotten, ""
				}
			}
			r.Notes = jsonOf(notes)
		}
	})
	if err != nil {
		return err
	}
	err = rewriteHolding(ctx, s.log, m.Key, func(l *LogRow) {
		if l.Actor == m.Key {
			l.Actor, l.ActorName = memberdata.Forgotten, ""
		}
		if l.TargetKey == m.Key {
			l.TargetName = ""
		}
		l.TargetKey = strings.ReplaceAll(l.TargetKey, m.Key, memberdata.Forgotten)
	})
	if err != nil {
		return err
	}
	if err := storage.Forget(ctx, s.reportQuota, m.Key, "w"); err != nil {
		return err
	}
	if err := s.forgetCounted(ctx, m.Key); err != nil {
		return err
	}
	return s.usage.forget(ctx, m.UserKey)
}

// rewriteHolding rewrites, at its ETag, every row of t (a T) that holds
// memberKey in a string property, as change says: a scan.
func rewriteHolding[T any](ctx context.Context, t *storage.Table, memberKey string, change func(*T)) error {
	return t.QueryAll(ctx, storage.Query{Scan: true}, func(e storage.Entity) error {
		if !holds(e, memberKey) {
			return nil
		}
		_, err := storage.Change(ctx, t, e.PartitionKey, e.RowKey, storage.ErrNoChange, func(row *T) error {
			change(row)
			return nil
		})
		return err
	})
}

// holds reports whether one of e's string properties has s in it.
func holds(e storage.Entity, s string) bool {
	for _, v := range e.Props {
		if str, ok := v.(string); ok && strings.Contains(str, s) {
			return true
		}
	}
	return false
}

// forgetCounted deletes the marks of the counters counted once a day
// per person (PK "once|{counter}", RK the escaped memberKey) that name
// memberKey; the day's counts stay.
func (s *Service) forgetCounted(ctx context.Context, memberKey string) error {
	q := storage.Query{Scan: true, Filters: []storage.Filter{
		{Name: "PartitionKey", Op: storage.Ge, Value: "once|"},
		{Name: "PartitionKey", Op: storage.Lt, Value: storage.PrefixEnd("once|")},
		{Name: "RowKey", Op: storage.Eq, Value: storage.EscapeKey(memberKey)},
	}}
	return s.daily.QueryAll(ctx, q, func(e storage.Entity) error {
		return storage.Forget(ctx, s.daily, e.PartitionKey, e.RowKey)
	})
}

// forget deletes userKey's usage rows, by day and by day and model.
func (u *Usage) forget(ctx context.Context, userKey string) error {
	if userKey == "" {
		return nil
	}
	if err := storage.DeletePartition(ctx, u.users, userKey); err != nil {
		return err
	}
	q := storage.Query{Scan: true, Filters: []storage.Filter{
		{Name: "PartitionKey", Op: storage.Ge, Value: userKey + "|"},
		{Name: "PartitionKey", Op: storage.Lt, Value: storage.PrefixEnd(userKey + "|")},
	}, Select: []string{"RowKey"}}
	return u.userModels.QueryAll(ctx, q, func(e storage.Entity) error {
		return storage.Forget(ctx, u.userModels, e.PartitionKey, e.RowKey)
	})
}
