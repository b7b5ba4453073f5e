package forum

import (
	"slices"
	"strconv"
	"strings"
	"time"
)

// A topic's Recent: its newest visible posts, number and time. Unread
// counts come from it (posts after a reader's marker and after their
// "mark all read"), and so does where a topic stood at an earlier time
// (the listing's paging). Hidden and deleted posts leave it, so they
// never count; a post shown again comes back at its number, which a
// reader who read past it has already passed.

// recentKeep is how many posts Recent holds: counts above it show as
// "50+".
const recentKeep = 50

// recentPost is one entry of Recent.
type recentPost struct {
	Num int
	At  time.Time
}

// parseRecent reads Recent, oldest first; malformed entries are skipped.
func parseRecent(s string) []recentPost {
	if s == "" {
		return nil
	}
	var out []recentPost
	for _, part := range strings.Split(s, ",") {
		n, t, ok := strings.Cut(part, ":")
		num, err1 := strconv.Atoi(n)
		ns, err2 := strconv.ParseInt(t, 10, 64)
		if !ok || err1 != nil || err2 != nil {
			continue
		}
		out = append(out, recentPost{Num: num, At: time.Unix(0, ns).UTC()})
	}
	return out
}

// formatRecent writes entries (sorted by number, the newest recentKeep).
func formatRecent(entries []recentPost) string {
	slices.SortFunc(entries, func(a, b recentPost) int { return a.Num - b.Num })
	entries = slices.CompactFunc(entries, func(a, b recentPost) bool { return a.Num == b.Num })
	if len(entries) > recentKeep {
		entries = entries[len(entries)-recentKeep:]
	}
	parts := make([]string, len(entries))
	for i, e := range entries {
		parts[i] = strconv.Itoa(e.Num) + ":" + strconv.FormatInt(e.At.UnixNano(), 10)
	}
	return strings.Join(parts, ",")
}

// withPost is Recent with a post shown (added, or back after hiding). A
// post older than everything a full Recent holds stays out.
func withPost(s string, num int, at time.Time) string {
	entries := parseRecent(s)
	if len(entries) >= recentKeep && num < entries[0].Num {
		return s
	}
	return formatRecent(append(entries, recentPost{Num: num, At: at}))
}

// withoutPost is Recent without a post (hidden or deleted).
func withoutPost(s string, num int) string {
	return formatRecent(slices.DeleteFunc(parseRecent(s), func(e recentPost) bool { return e.Num == num }))
}

// newest is the newest entry of Recent, ok false when it is empty.
func newest(s string) (recentPost, bool) {
	entries := parseRecent(s)
	if len(entries) == 0 {
		return recentPost{}, false
	}
	return entries[len(entries)-1], true
}

// unreadIn counts the posts of Recent after readNum and after since;
// more says there may be others beyond what Recent keeps.
func unreadIn(s string, readNum int, since time.Time) (n int, more bool) {
	entries := parseRecent(s)
	for _, e := range entries {
		if e.Num > readNum && e.At.After(since) {
			n++
		}
	}
	more = len(entries) >= recentKeep && n == len(entries)
	return n, more
}

// activityAsOf is the time of the newest post of Recent at or before t;
// ok is false when Recent holds none (all are newer, or it is empty).
func activityAsOf(s string, t time.Time) (time.Time, bool) {
	var best time.Time
	ok := false
	for _, e := range parseRecent(s) {
		if !e.At.After(t) && (!ok || e.At.After(best)) {
			best, ok = e.At, true
		}
	}
	return best, ok
}
