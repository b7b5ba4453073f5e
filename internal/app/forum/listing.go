package forum

import (
	"context"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/harmony/harmony/internal/storage"
)

// A section's list: pinned topics first, then the most recently active,
// from the section's TopicActivityIndex partition, in two queries
// whatever the depth.
//
// Paging while others reply must neither repeat a topic nor skip one,
// yet a reply moves its topic to the top. So a list is read as it stood
// when its first page was made (T0, carried in the cursor): the second
// query reads the rows whose activity is at or before T0 from the
// cursor on, and the first reads everything above them, the pins and the
// topics that moved since T0, few in any case; a moved topic is put back
// where it stood at T0, worked out from its Recent. Pins that ended
// (judged now), and pins the reader dismissed, join the others at their
// activity. Topics opened after T0 wait for the next first page, as in
// any newest-first list. A topic with more than recentKeep replies since
// T0 is put at T0.

// pageSize is how many topics a list page shows; movedCap bounds the
// pins and moved topics one page reads.
const (
	pageSize = 25
	movedCap = 500
)

// ListPage is one page of a section's list.
type ListPage struct {
	// Pinned are the pins, on the first page only.
	Pinned []ActivityRow
	Topics []ActivityRow
	// Next is the next page's cursor, "" at the end.
	Next string
}

// listCursor is where a list page resumes: the list's time and the last
// place shown.
type listCursor struct {
	at   time.Time
	last string
}

func (c listCursor) String() string { return strconv.FormatInt(c.at.UnixNano(), 10) + "|" + c.last }

func parseListCursor(s string) (listCursor, bool) {
	ns, last, ok := strings.Cut(s, "|")
	n, err := strconv.ParseInt(ns, 10, 64)
	if !ok || err != nil || !strings.HasPrefix(last, "1|") {
		return listCursor{}, false
	}
	return listCursor{at: time.Unix(0, n).UTC(), last: last}, true
}

// cursorPurpose binds a list cursor to its section.
func cursorPurpose(section string) string { return "forum-list|" + section }

// ListSection reads a page of section's topics for memberKey ("" for a
// visitor: no dismissed pins), from token ("" for the first page). The
// reader's markers of the page's topics come with it.
func (s *Service) ListSection(ctx context.Context, section, memberKey, token string) (ListPage, Reader, error) {
	cur := listCursor{at: s.now().UTC()}
	if token != "" {
		v, err := s.cursors.Open(cursorPurpose(section), token)
		if err != nil {
			return ListPage{}, Reader{}, err
		}
		c, ok := parseListCursor(v)
		if !ok {
			return ListPage{}, Reader{}, storage.ErrBadCursor
		}
		cur = c
	}
	pk := sectionPart(section)
	floor := "1|" + storage.ReverseTicks(cur.at)
	top, _, err := storage.Take[ActivityRow](ctx, s.activity, storage.Query{PartitionKey: pk, RowKeyTo: floor}, movedCap)
	if err != nil {
		return ListPage{}, Reader{}, err
	}
	from := floor
	if cur.last != "" && storage.PrefixEnd(cur.last) > from {
		from = storage.PrefixEnd(cur.last)
	}
	rest, _, err := storage.Take[ActivityRow](ctx, s.activity, storage.Query{PartitionKey: pk, RowKeyFrom: from, RowKeyTo: "2"}, pageSize+1)
	if err != nil {
		return ListPage{}, Reader{}, err
	}
	// Markers matter for pins (dismissed) and for topics recent enough
	// to be unread: older ones cost no read.
	var ids []string
	for _, r := range append(top, rest...) {
		if r.Pinned || s.now().Sub(r.LastActivityAt) <= cutoff {
			ids = append(ids, r.TopicID)
		}
	}
	rd, err := s.reader(ctx, memberKey, ids)
	if err != nil {
		return ListPage{}, Reader{}, err
	}
	now := s.now()
	var out ListPage
	type placed struct {
		key string
		row ActivityRow
	}
	var list []placed
	for _, r := range rest {
		list = append(list, placed{r.RowKey, r})
	}
	for _, r := range top {
		if stillPinned(r.Summary, now) && !rd.Markers[r.TopicID].Dismissed {
			if token == "" {
				out.Pinned = append(out.Pinned, r)
			}
			continue
		}
		at := r.LastActivityAt
		if at.After(cur.at) {
			var ok bool
			if at, ok = activityAsOf(r.Recent, cur.at); !ok {
				if r.CreatedAt.After(cur.at) {
					continue // opened since the list's first page
				}
				at = cur.at
			}
		}
		list = append(list, placed{activityKey(false, at, r.TopicID), r})
	}
	list = slices.DeleteFunc(list, func(p placed) bool { return cur.last != "" && p.key <= cur.last })
	slices.SortFunc(list, func(a, b placed) int { return strings.Compare(a.key, b.key) })
	more := len(rest) > pageSize
	if len(list) > pageSize {
		list, more = list[:pageSize], true
	}
	for _, p := range list {
		out.Topics = append(out.Topics, p.row)
	}
	if more && len(list) > 0 {
		out.Next = s.cursors.Seal(cursorPurpose(section), listCursor{at: cur.at, last: list[len(list)-1].key}.String())
	}
	return out, rd, nil
}

// stillPinned reports whether r's pin holds at now.
func stillPinned(r Summary, now time.Time) bool {
	return r.Pinned && (r.PinUntil == nil || now.Before(*r.PinUntil))
}
