package inbox

import (
	"context"
	"encoding/json"
	"errors"
	"maps"
	"strconv"
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
	// The change feed's rows of their inbox's topic name them.
	if err := s.feed.Forget(ctx, m.Key); err != nil {
		return err
	}
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
// and quote (it only points at something of theirs); an argument that is
// their name ("{name} invited you") reads "Deleted member" instead: the
// arguments a notice's names say are m's, or in a notice without names
// (Notice.Names) those holding m's name (renamed).
func (s *Service) forgetMentions(ctx context.Context, m memberdata.Member) error {
	keys := needles(m)
	q := storage.Query{Scan: true, RowKeyTo: noticeKeysEnd, Select: []string{"args", "link", "ref", "names", "actors"}}
	return s.table.QueryAll(ctx, q, func(e storage.Entity) error {
		args, _ := e.Props["args"].(string)
		link, _ := e.Props["link"].(string)
		ref, _ := e.Props["ref"].(string)
		names, _ := e.Props["names"].(string)
		actors, _ := e.Props["actors"].(string)
		if keys.in(args) {
			s.badges.Delete(e.PartitionKey)
			return storage.Forget(ctx, s.table, e.PartitionKey, e.RowKey)
		}
		newArgs, newNames, err := renamed(args, names, m)
		if err != nil {
			return err
		}
		props := map[string]any{}
		if keys.in(link) {
			props["link"] = ""
		}
		if keys.in(ref) {
			props["ref"] = ""
		}
		if keys.in(actors) {
			props["actors"] = withoutActor(actors, m)
		}
		if newArgs != args {
			props["args"] = newArgs
		}
		if newNames != names {
			props["names"] = newNames
		}
		if len(props) == 0 {
			return nil
		}
		_, err = s.table.Update(ctx, storage.Entity{PartitionKey: e.PartitionKey, RowKey: e.RowKey, Props: props}, storage.Merge, storage.AnyETag)
		if errors.Is(err, storage.ErrNotFound) {
			return nil
		}
		return err
	})
}

// withoutActor is a gathered notice's actors (Notice.Gather) with m's
// key put out of them: in its place a word of its own in the list
// ("forgotten" and its place), so the notice still counts them among
// the others, by no key.
func withoutActor(actors string, m memberdata.Member) string {
	list := strings.Split(actors, ",")
	for i, a := range list {
		if a == m.Key || a == m.UserKey {
			list[i] = "forgotten" + strconv.Itoa(i)
		}
	}
	return strings.Join(list, ",")
}

// renamed is a notice's arguments (JSON) with each that is forgotten
// member m's name replaced by "Deleted member" in every language
// (InLanguage), and its names (JSON, Notice.Names) without m: the
// arguments names says are m's, or where names is "" (a notice of before,
// or one quoting a name whose member was not known) those that are m's
// name. Both come back as they are when nothing is m's.
func renamed(args, names string, m memberdata.Member) (string, string, error) {
	// Most notices name someone else: passed over without reading them.
	holds := func(s, v string) bool {
		quoted, _ := json.Marshal(v)
		return v != "" && strings.Contains(s, string(quoted))
	}
	if names == "" && !holds(args, m.Name) || names != "" && !holds(names, m.Key) && !holds(names, m.UserKey) {
		return args, names, nil
	}
	var whose map[string]string
	if names != "" {
		if err := json.Unmarshal([]byte(names), &whose); err != nil {
			return args, names, nil // not names this module wrote: left alone
		}
	}
	isM := func(arg, value string) bool {
		if whose == nil {
			return m.Name != "" && value == m.Name
		}
		key := whose[arg]
		return key != "" && (key == m.Key || key == m.UserKey)
	}
	var a map[string]string
	if err := json.Unmarshal([]byte(args), &a); err != nil {
		return args, names, nil // not arguments this module wrote: left alone
	}
	var forgotten map[i18n.Lang]string
	changed := false
	for k, v := range a {
		arg, lang, translated := strings.Cut(k, "@")
		if !isM(arg, v) && !(translated && isM(arg, a[arg])) {
			continue
		}
		if forgotten == nil {
			var err error
			if forgotten, err = memberdata.ForgottenNames(); err != nil {
				return "", "", err
			}
		}
		changed = true
		if translated {
			a[k] = forgotten[i18n.Lang(lang)]
			continue
		}
		a[k] = ""
		for l, text := range forgotten {
			a[InLanguage(k, l)] = text
		}
	}
	if !changed {
		return args, names, nil
	}
	b, err := json.Marshal(a)
	if err != nil {
		return "", "", err
	}
	if whose == nil {
		return string(b), names, nil
	}
	maps.DeleteFunc(whose, func(_, key string) bool { return key == m.Key || key == m.UserKey })
	w, err := json.Marshal(whose)
	return string(b), string(w), err
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
