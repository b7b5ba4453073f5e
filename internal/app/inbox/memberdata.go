package inbox

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"time"

	"github.com/harmony/harmony/internal/i18n"
	"github.com/harmony/harmony/internal/memberdata"
	"github.com/harmony/harmony/internal/storage"
)

// A member's data: their notices and read state are theirs alone, and
// go with their account, as do their email counters (InboxQuota, under
// their memberKey and under their address's userKey). Notices to others
// keep the names they were posted with ("Anna likes you"), but none may
// keep the member's key or address: Notifications has no index by what
// a notice names, so forgetting reads the table whole, a page at a time,
// and drops a notice whose arguments hold them or takes the link or
// quote out of one that only points at them.

// exportedNotice is one notice in the member's archive.
type exportedNotice struct {
	At   time.Time `json:"at"`
	Text string    `json:"text"`
	Link string    `json:"link,omitempty"`
	Read bool      `json:"read"`
}

// ExportMember writes m's notices, newest first, in the request's
// language, as inbox/notifications.json (memberdata.Exporter).
func (s *Service) ExportMember(ctx context.Context, m memberdata.Member, to memberdata.Archive) error {
	state, err := s.state(ctx, m.Key)
	if err != nil {
		return err
	}
	ctx = i18n.WithLocalizer(ctx, s.catalog.For(i18n.LangOf(ctx)))
	out := []exportedNotice{}
	err = s.table.QueryAll(ctx, storage.Query{PartitionKey: m.Key, RowKeyTo: noticeKeysEnd}, func(e storage.Entity) error {
		var r NoticeRow
		if err := storage.Unmarshal(e, &r); err != nil {
			return err
		}
		it := s.item(ctx, m.Key, r, state.ReadThrough)
		out = append(out, exportedNotice{At: it.At, Text: it.Text(ctx, time.UTC), Link: it.Link, Read: !it.Unread})
		return nil
	})
	if err != nil {
		return err
	}
	return to.JSON("inbox/notifications.json", out)
}

// ForgetMember deletes m's inbox and email counters, and what others'
// notices hold of m's key or address (memberdata.Forgetter). Each step
// deletes or rewrites rows that still name m, so a run cut short is
// finished by the next, and a second run changes nothing.
func (s *Service) ForgetMember(ctx context.Context, m memberdata.Member) error {
	if m.Key == "" {
		return errors.New("inbox: forget of no member")
	}
	if err := storage.DeletePartition(ctx, s.table, m.Key); err != nil {
		return err
	}
	s.badges.Delete(m.Key)
	for _, key := range []string{m.Key, m.UserKey} {
		if key == "" {
			continue
		}
		if err := storage.Forget(ctx, s.mails.Table, key, quotaRowKey); err != nil {
			return err
		}
	}
	return s.forgetMentions(ctx, m)
}

// quotaRowKey is the quota kit's one row per key.
const quotaRowKey = "w"

// forgetMentions reads every notice and, where one names m by key or
// address, drops it (its arguments quote them) or takes out its link
// and quote (it only points at something of theirs).
func (s *Service) forgetMentions(ctx context.Context, m memberdata.Member) error {
	names := needles(m)
	q := storage.Query{Scan: true, RowKeyTo: noticeKeysEnd, Select: []string{"args", "link", "ref"}}
	return s.table.QueryAll(ctx, q, func(e storage.Entity) error {
		args, _ := e.Props["args"].(string)
		link, _ := e.Props["link"].(string)
		ref, _ := e.Props["ref"].(string)
		switch {
		case names.in(args):
			s.badges.Delete(e.PartitionKey)
			return storage.Forget(ctx, s.table, e.PartitionKey, e.RowKey)
		case names.in(link) || names.in(ref):
			props := map[string]any{}
			if names.in(link) {
				props["link"] = ""
			}
			if names.in(ref) {
				props["ref"] = ""
			}
			_, err := s.table.Update(ctx, storage.Entity{PartitionKey: e.PartitionKey, RowKey: e.RowKey, Props: props}, storage.Merge, storage.AnyETag)
			if errors.Is(err, storage.ErrNotFound) {
				return nil
			}
			return err
		}
		return nil
	})
}

// memberNames are the ways a row may hold a member: their key, userKey
// and address, as they are, escaped for a key, and escaped in JSON.
type memberNames []string

func needles(m memberdata.Member) memberNames {
	var out memberNames
	for _, s := range []string{m.Key, m.UserKey, m.Email} {
		if s == "" {
			continue
		}
		j, _ := json.Marshal(s)
		out = append(out, s, storage.EscapeKey(s), strings.Trim(string(j), `"`))
	}
	return out
}

func (n memberNames) in(s string) bool {
	for _, x := range n {
		if strings.Contains(s, x) {
			return true
		}
	}
	return false
}
