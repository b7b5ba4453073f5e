package forum

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/harmony/harmony/internal/app/inbox"
	"github.com/harmony/harmony/internal/storage"
	"github.com/harmony/harmony/internal/storage/storetest"
)

// clock is a test's time, moved by hand.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) advance(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

var (
	ann   = Person{MemberKey: "auth:ann", Name: "Ann Lee"}
	bob   = Person{MemberKey: "auth:bob", Name: "Bob Stone"}
	admin = Person{MemberKey: "auth:boss", Name: "Boss", Admin: true}
)

// newForum is the forum on store with a "general" section and a clock.
func newForum(t testing.TB, store *storage.Store) (*Service, *clock) {
	t.Helper()
	c := &clock{t: time.Date(2030, 3, 1, 9, 0, 0, 0, time.UTC)}
	cursors, err := storage.NewCursors([]byte("0123456789abcdef0123456789abcdef"))
	if err != nil {
		t.Fatal(err)
	}
	s := New(store, cursors, nil, c.now)
	if err := store.Provision(context.Background(), s.Tables(), nil); err != nil {
		t.Fatal(err)
	}
	if _, err := s.CreateSection(context.Background(), SectionInput{Slug: "general", Name: "General"}); err != nil {
		t.Fatal(err)
	}
	return s, c
}

// sectionRows are a section's index rows.
func sectionRows(t testing.TB, s *Service, section string) []ActivityRow {
	t.Helper()
	rows, err := storage.All[ActivityRow](context.Background(), s.activity, storage.Query{PartitionKey: sectionPart(section)})
	if err != nil {
		t.Fatal(err)
	}
	return rows
}

// TestConcurrentReplies: 50 replies at once to one topic are posts
// 2…51, no gap and no repeat; the topic's counters match its rows; the
// topic has exactly one index row per partition, at its last activity;
// the section's counters are exact. On both backends.
func TestConcurrentReplies(t *testing.T) {
	t.Parallel()
	for name, open := range storetest.Backends(t) {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			s, c := newForum(t, open(t))
			ctx := context.Background()
			topic, err := s.CreateTopic(ctx, ann, "general", "Concurrency", "first")
			if err != nil {
				t.Fatal(err)
			}
			c.advance(time.Second)
			var wg sync.WaitGroup
			for i := range 50 {
				wg.Add(1)
				go func() {
					defer wg.Done()
					who := Person{MemberKey: fmt.Sprintf("auth:p%02d", i), Name: fmt.Sprintf("P%02d", i)}
					if _, err := s.Reply(ctx, who, topic.PartitionKey, fmt.Sprint("reply ", i)); err != nil {
						t.Errorf("reply %d: %v", i, err)
					}
				}()
			}
			wg.Wait()
			posts, err := s.Posts(ctx, topic.PartitionKey, 1, 1000)
			if err != nil {
				t.Fatal(err)
			}
			var nums []int
			for _, p := range posts {
				nums = append(nums, p.Num)
			}
			want := make([]int, 51)
			for i := range want {
				want[i] = i + 1
			}
			if !slices.Equal(nums, want) {
				t.Fatalf("post numbers %v", nums)
			}
			h, err := s.Head(ctx, topic.PartitionKey)
			if err != nil {
				t.Fatal(err)
			}
			if h.Posts != 51 || h.Replies != 50 || len(parseRecent(h.Recent)) != recentKeep {
				t.Fatalf("head: posts %d, replies %d, recent %d", h.Posts, h.Replies, len(parseRecent(h.Recent)))
			}
			rows := sectionRows(t, s, "general")
			if len(rows) != 1 || rows[0].Replies != 50 || rows[0].RowKey != activityKey(false, h.LastActivityAt, h.PartitionKey) {
				t.Fatalf("section index: %+v", rows)
			}
			all, _ := storage.All[ActivityRow](ctx, s.activity, storage.Query{PartitionKey: allPart})
			if len(all) != 1 {
				t.Fatalf("%d rows in the whole forum's index", len(all))
			}
			sec, _ := s.Section(ctx, "general")
			if sec.Topics != 1 || sec.LastActivityAt == nil || !sec.LastActivityAt.Equal(h.LastActivityAt) {
				t.Fatalf("section: %d topics, last %v (head %v)", sec.Topics, sec.LastActivityAt, h.LastActivityAt)
			}
		})
	}
}

// TestWriteBudgets holds a reply to 15 storage calls, whatever the
// topic's length, and a new topic with a one-word title to 20: the head
// carries the intent of its index rows (projection.Intend), so the
// follows write no intent of their own (they would cost 16 and 22). Two
// of each are the writer's pace (limitPace: their window's row read and
// written); one of a new topic's is its author's footprint there
// (memberdata.Footprints), which a reply writes only in a topic new to
// its author (the first reply, not held here).
func TestWriteBudgets(t *testing.T) {
	t.Parallel()
	s, c := newForum(t, storetest.Open(t))
	ctx := context.Background()
	// The section's first topic also starts its counters.
	if _, err := s.CreateTopic(ctx, ann, "general", "Warm", "first"); err != nil {
		t.Fatal(err)
	}
	cctx, counter := storage.WithCounter(ctx)
	topic, err := s.CreateTopic(cctx, ann, "general", "Budget", "first")
	if err != nil {
		t.Fatal(err)
	}
	if n := counter.Snapshot().Total(); n > 20 {
		t.Errorf("a new topic cost %s", counter.Snapshot())
	}
	who := Person{MemberKey: "auth:p1", Name: "P1"}
	for i := range 30 {
		c.advance(time.Second)
		cctx, counter = storage.WithCounter(ctx)
		if _, err := s.Reply(cctx, who, topic.PartitionKey, fmt.Sprint("reply ", i)); err != nil {
			t.Fatal(err)
		}
		if n := counter.Snapshot().Total(); i > 0 && n > 15 {
			t.Fatalf("reply %d cost %s", i, counter.Snapshot())
		}
	}
}

// TestAPostKeepsAtMostMaxRevisions: the history's keys hold four digits,
// so a post with maxRevisions earlier versions takes no more edits.
func TestAPostKeepsAtMostMaxRevisions(t *testing.T) {
	t.Parallel()
	s, _ := newForum(t, storetest.Open(t))
	ctx := context.Background()
	topic, err := s.CreateTopic(ctx, ann, "general", "Revised", "first")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := storage.Change(ctx, s.posts, topic.PartitionKey, postKey(1), ErrNoPost, func(p *PostRow) error {
		p.Revisions = maxRevisions
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if err := s.Edit(ctx, ann, topic.PartitionKey, 1, "Revised", "once more"); !errors.Is(err, ErrTooManyRevisions) {
		t.Fatalf("an edit past the last version: %v", err)
	}
	if _, p, _ := s.Post(ctx, topic.PartitionKey, 1); p.Body != "first" {
		t.Fatalf("the refused edit wrote %q", p.Body)
	}
}

// TestSectionCountersUnderConcurrency: 20 topics opened at once in one
// section count 20.
func TestSectionCountersUnderConcurrency(t *testing.T) {
	t.Parallel()
	s, _ := newForum(t, storetest.Open(t))
	ctx := context.Background()
	var wg sync.WaitGroup
	for i := range 20 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			// Each by someone else: the section's counter is what is
			// shared, not one person's pace.
			author := Person{MemberKey: fmt.Sprint("auth:writer", i), Name: fmt.Sprint("Writer ", i)}
			if _, err := s.CreateTopic(ctx, author, "general", fmt.Sprint("Topic ", i), "body"); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	if sec, _ := s.Section(ctx, "general"); sec.Topics != 20 {
		t.Fatalf("%d topics counted", sec.Topics)
	}
}

// TestUnreadTracking: a marker moves forward only (a stale read leaves
// it); "mark unread from here" sets it back; "mark all read" is one write
// after which one new reply counts one, not the topic's history; hidden
// and deleted posts never count, and showing a hidden post again counts
// only for those who had not read past it.
func TestUnreadTracking(t *testing.T) {
	t.Parallel()
	s, c := newForum(t, storetest.Open(t))
	ctx := context.Background()
	topic, _ := s.CreateTopic(ctx, ann, "general", "Unread", "first")
	id := topic.PartitionKey
	for i := range 5 {
		c.advance(time.Minute)
		if _, err := s.Reply(ctx, ann, id, fmt.Sprint("r", i)); err != nil {
			t.Fatal(err)
		}
	}
	unread := func() Unread {
		t.Helper()
		rows := sectionRows(t, s, "general")
		rd, err := s.reader(ctx, bob.MemberKey, []string{id})
		if err != nil {
			t.Fatal(err)
		}
		return rd.unreadOf(rows[0], c.now())
	}
	if u := unread(); !u.New {
		t.Fatalf("never opened: %+v", u)
	}
	s.markRead(ctx, bob.MemberKey, id, 4)
	s.markRead(ctx, bob.MemberKey, id, 2) // a stale tab
	if u := unread(); u.N != 2 {
		t.Fatalf("read to 4 of 6: %+v", u)
	}
	if err := s.MarkUnread(ctx, bob.MemberKey, id, 3); err != nil {
		t.Fatal(err)
	}
	if u := unread(); u.N != 4 {
		t.Fatalf("unread from 3: %+v", u)
	}
	// Hiding post 5 (unread for bob): one less; post 2 (read): no change.
	if err := s.Hide(ctx, admin, id, 5, true); err != nil {
		t.Fatal(err)
	}
	if u := unread(); u.N != 3 {
		t.Fatalf("post 5 hidden: %+v", u)
	}
	s.markRead(ctx, bob.MemberKey, id, 6)
	if u := unread(); u.N != 0 {
		t.Fatalf("all read: %+v", u)
	}
	if err := s.Hide(ctx, admin, id, 5, false); err != nil {
		t.Fatal(err)
	}
	if u := unread(); u.N != 0 {
		t.Fatalf("post 5 shown again to someone who read past it: %+v", u)
	}
	if err := s.Delete(ctx, ann, id, 6); err != nil {
		t.Fatal(err)
	}
	// Mark all read, then one reply: one unread, for a reader with a
	// marker and for one without.
	cat := Person{MemberKey: "auth:cat", Name: "Cat"}
	for _, p := range []Person{bob, cat} {
		if err := s.MarkAllRead(ctx, p.MemberKey); err != nil {
			t.Fatal(err)
		}
	}
	c.advance(time.Minute)
	if _, err := s.Reply(ctx, ann, id, "after mark all"); err != nil {
		t.Fatal(err)
	}
	for _, p := range []Person{bob, cat} {
		rd, _ := s.reader(ctx, p.MemberKey, []string{id})
		if u := rd.unreadOf(sectionRows(t, s, "general")[0], c.now()); u.N != 1 || u.New {
			t.Errorf("%s after mark all and one reply: %+v", p.Name, u)
		}
	}
	// Past the cutoff nothing is unread.
	c.advance(cutoff + time.Hour)
	if u := unread(); u.N != 0 || u.New {
		t.Errorf("past the cutoff: %+v", u)
	}
}

// TestSectionPaging: pinned topics first, on the first page; the rest by
// last activity; while people reply and open topics between pages,
// paging shows every topic that was there exactly once; a pin that
// ended and a dismissed pin join the others at their activity.
func TestSectionPaging(t *testing.T) {
	t.Parallel()
	s, c := newForum(t, storetest.Open(t))
	ctx := context.Background()
	var ids []string
	for i := range 60 {
		c.advance(time.Minute)
		tp, err := s.CreateTopic(ctx, admin, "general", fmt.Sprint("Topic ", i), "body") // an admin keeps no pace
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, tp.PartitionKey)
	}
	until := c.now().Add(time.Hour)
	if err := s.Pin(ctx, admin, ids[0], true, nil); err != nil {
		t.Fatal(err)
	}
	if err := s.Pin(ctx, admin, ids[1], true, &until); err != nil {
		t.Fatal(err)
	}
	page, _, err := s.ListSection(ctx, "general", bob.MemberKey, "")
	if err != nil {
		t.Fatal(err)
	}
	if len(page.Pinned) != 2 || len(page.Topics) != pageSize || page.Topics[0].TopicID != ids[59] {
		t.Fatalf("first page: %d pinned, %d topics, first %s", len(page.Pinned), len(page.Topics), page.Topics[0].TopicID)
	}
	seen := map[string]int{}
	for _, r := range append(page.Pinned, page.Topics...) {
		seen[r.TopicID]++
	}
	// Between pages: replies to topics not yet shown and to one shown,
	// and a new topic.
	for _, i := range []int{5, 20, 58} {
		c.advance(time.Second)
		if _, err := s.Reply(ctx, bob, ids[i], "bump"); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.CreateTopic(ctx, bob, "general", "Brand new", "body"); err != nil {
		t.Fatal(err)
	}
	for next := page.Next; next != ""; {
		p, _, err := s.ListSection(ctx, "general", bob.MemberKey, next)
		if err != nil {
			t.Fatal(err)
		}
		if len(p.Pinned) != 0 {
			t.Error("pins on a later page")
		}
		for _, r := range p.Topics {
			seen[r.TopicID]++
		}
		next = p.Next
	}
	for i, id := range ids {
		if seen[id] != 1 {
			t.Errorf("topic %d shown %d times", i, seen[id])
		}
	}
	// The timed pin ends; bob dismisses the other: the first page then
	// pins nothing for him, and both are in their places by activity.
	c.advance(2 * time.Hour)
	if err := s.DismissPin(ctx, bob.MemberKey, ids[0]); err != nil {
		t.Fatal(err)
	}
	page, _, _ = s.ListSection(ctx, "general", bob.MemberKey, "")
	if len(page.Pinned) != 0 {
		t.Fatalf("pins left for bob: %d", len(page.Pinned))
	}
	page, _, _ = s.ListSection(ctx, "general", ann.MemberKey, "")
	if len(page.Pinned) != 1 || page.Pinned[0].TopicID != ids[0] {
		t.Fatalf("ann's pins: %+v", page.Pinned)
	}
	if _, _, err := s.ListSection(ctx, "general", "", "not-a-cursor"); !errors.Is(err, storage.ErrBadCursor) {
		t.Errorf("a bad cursor: %v", err)
	}
}

// TestLockAndSlowMode: a locked topic refuses members' replies and takes
// staff's; slow mode refuses a second reply inside its window with the
// time left, lets it after, and does not hold staff.
func TestLockAndSlowMode(t *testing.T) {
	t.Parallel()
	s, c := newForum(t, storetest.Open(t))
	ctx := context.Background()
	tp, _ := s.CreateTopic(ctx, ann, "general", "Rules", "body")
	id := tp.PartitionKey
	if err := s.Lock(ctx, bob, id, true); !errors.Is(err, ErrNotStaff) {
		t.Fatalf("a member locks: %v", err)
	}
	if err := s.Lock(ctx, admin, id, true); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Reply(ctx, bob, id, "hi"); !errors.Is(err, ErrLocked) {
		t.Fatalf("reply to a locked topic: %v", err)
	}
	if _, err := s.Reply(ctx, admin, id, "staff note"); err != nil {
		t.Fatalf("staff reply to a locked topic: %v", err)
	}
	s.Lock(ctx, admin, id, false)
	if err := s.SlowMode(ctx, admin, id, 60); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Reply(ctx, bob, id, "one"); err != nil {
		t.Fatal(err)
	}
	c.advance(20 * time.Second)
	var slow ErrSlowMode
	if _, err := s.Reply(ctx, bob, id, "two"); !errors.As(err, &slow) || slow.Wait != 40*time.Second {
		t.Fatalf("second reply in slow mode: %v", err)
	}
	if _, err := s.Reply(ctx, admin, id, "staff"); err != nil {
		t.Fatalf("staff in slow mode: %v", err)
	}
	c.advance(41 * time.Second)
	if _, err := s.Reply(ctx, bob, id, "two"); err != nil {
		t.Fatalf("after the wait: %v", err)
	}
	if h, _ := s.Head(ctx, id); h.Posts != 5 {
		t.Fatalf("%d posts", h.Posts)
	}
}

// TestRebuildRepairsHalfFinishedWrites: a topic written without its
// index rows or section count (a crash in between), and an index row of
// no topic, are put right by the rebuild.
func TestRebuildRepairsHalfFinishedWrites(t *testing.T) {
	t.Parallel()
	s, c := newForum(t, storetest.Open(t))
	ctx := context.Background()
	if _, err := s.CreateTopic(ctx, ann, "general", "Whole", "body"); err != nil {
		t.Fatal(err)
	}
	// The crash: the topic's partition written, nothing after it.
	now := c.now()
	id := newTopicID(now)
	head, _ := storage.Marshal(TopicRow{PartitionKey: id, RowKey: headKey, AuthorKey: ann.MemberKey, Summary: Summary{Section: "general", Title: "Half", AuthorName: ann.Name, Posts: 1, LastActivityAt: now, Recent: withPost("", 1, now), CreatedAt: now}})
	post, _ := storage.Marshal(PostRow{PartitionKey: id, RowKey: postKey(1), Num: 1, AuthorKey: ann.MemberKey, Body: "x", CreatedAt: now})
	if err := s.posts.Transact(ctx, []storage.TxOp{{Kind: storage.TxInsert, Entity: head}, {Kind: storage.TxInsert, Entity: post}}); err != nil {
		t.Fatal(err)
	}
	orphan := ActivityRow{PartitionKey: sectionPart("general"), RowKey: activityKey(false, now, "01ORPHAN"), TopicID: "01ORPHAN", Summary: Summary{Title: "Gone", LastActivityAt: now, CreatedAt: now}}
	if _, err := storage.Upsert(ctx, s.activity, orphan); err != nil {
		t.Fatal(err)
	}
	rep, err := s.Rebuild(ctx)
	if err != nil {
		t.Fatal(err)
	}
	rows := sectionRows(t, s, "general")
	var titles []string
	for _, r := range rows {
		titles = append(titles, r.Title)
	}
	slices.Sort(titles)
	if !slices.Equal(titles, []string{"Half", "Whole"}) {
		t.Fatalf("after the rebuild: %v (%s)", titles, rep)
	}
	if sec, _ := s.Section(ctx, "general"); sec.Topics != 2 {
		t.Fatalf("section counts %d topics", sec.Topics)
	}
}

// TestRebuildRecountsTopics: a topic whose head fell behind its posts
// (a hide, a delete or a reply whose second write never happened) gets
// its counts back from the posts; a second rebuild finds nothing.
func TestRebuildRecountsTopics(t *testing.T) {
	t.Parallel()
	s, c := newForum(t, storetest.Open(t))
	ctx := context.Background()
	tp, err := s.CreateTopic(ctx, ann, "general", "Counted", "body")
	if err != nil {
		t.Fatal(err)
	}
	id := tp.PartitionKey
	for _, body := range []string{"one", "two", "three"} {
		c.advance(time.Minute)
		if _, err := s.Reply(ctx, bob, id, body); err != nil {
			t.Fatal(err)
		}
	}
	want, _ := s.Head(ctx, id)
	// The crash: reply 3 hidden, and its head never told.
	if _, err := storage.Change(ctx, s.posts, id, postKey(3), ErrNoPost, func(p *PostRow) error { p.Hidden = true; return nil }); err != nil {
		t.Fatal(err)
	}
	rep, err := s.Rebuild(ctx)
	if err != nil {
		t.Fatal(err)
	}
	got, _ := s.Head(ctx, id)
	if r := rep.(RebuildReport); r.Topics != 1 || got.Replies != 2 || got.Posts != 4 || strings.Contains(got.Recent, "3:") || !got.LastActivityAt.Equal(want.LastActivityAt) {
		t.Fatalf("after the rebuild: %s; replies %d, posts %d, recent %q", rep, got.Replies, got.Posts, got.Recent)
	}
	// Reply 4, the newest, hidden too: the last activity goes back to 2's.
	if _, err := storage.Change(ctx, s.posts, id, postKey(4), ErrNoPost, func(p *PostRow) error { p.Hidden = true; return nil }); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Rebuild(ctx); err != nil {
		t.Fatal(err)
	}
	two, _ := s.post(ctx, id, 2)
	if got, _ := s.Head(ctx, id); got.Replies != 1 || !got.LastActivityAt.Equal(two.CreatedAt) {
		t.Fatalf("after hiding the newest: replies %d, last activity %s, want %s", got.Replies, got.LastActivityAt, two.CreatedAt)
	}
	if rep, err := s.Rebuild(ctx); err != nil || rep.(RebuildReport).Topics != 0 {
		t.Fatalf("a second rebuild: %s, %v", rep, err)
	}
}

// TestEditDeleteLike: an author's edit keeps the earlier version and
// marks the post edited; someone else's edit is refused; a like counts
// once per person and can be taken back; deleting leaves a tombstone
// that no longer counts; an author cannot delete an opening post with
// replies; bad text is refused and writes nothing.
func TestEditDeleteLike(t *testing.T) {
	t.Parallel()
	s, c := newForum(t, storetest.Open(t))
	ctx := context.Background()
	tp, _ := s.CreateTopic(ctx, ann, "general", "Edits", "version one")
	id := tp.PartitionKey
	c.advance(time.Minute)
	if err := s.Edit(ctx, bob, id, 1, "Edits", "mine now"); !errors.Is(err, ErrNotYours) {
		t.Fatalf("someone else's edit: %v", err)
	}
	if err := s.Edit(ctx, ann, id, 1, "Edits, revised", "version two"); err != nil {
		t.Fatal(err)
	}
	_, p, _ := s.Post(ctx, id, 1)
	revs, _ := s.Revisions(ctx, id, 1, 1, 2)
	if p.Body != "version two" || p.EditedAt == nil || len(revs) != 1 || revs[0].Body != "version one" {
		t.Fatalf("after the edit: %+v, revisions %+v", p, revs)
	}
	if h, _ := s.Head(ctx, id); h.Title != "Edits, revised" || sectionRows(t, s, "general")[0].Title != "Edits, revised" {
		t.Fatalf("title: %q", h.Title)
	}
	var fe FormErrors
	if err := s.Edit(ctx, ann, id, 1, "ab", ""); !errors.As(err, &fe) || fe["title"] == "" || fe["body"] == "" {
		t.Fatalf("bad edit: %v", err)
	}
	if _, p, _ := s.Post(ctx, id, 1); p.Revisions != 1 {
		t.Fatal("a refused edit wrote")
	}
	for range 2 {
		if err := s.Like(ctx, bob, id, 1, true); err != nil {
			t.Fatal(err)
		}
	}
	if _, p, _ := s.Post(ctx, id, 1); p.Likes != 1 {
		t.Fatalf("%d likes", p.Likes)
	}
	liked, _ := s.LikedBy(ctx, id, bob.MemberKey, 1, 20)
	if !liked[1] {
		t.Error("bob's like not found")
	}
	s.Like(ctx, bob, id, 1, false)
	if _, p, _ := s.Post(ctx, id, 1); p.Likes != 0 {
		t.Fatalf("%d likes after taking it back", p.Likes)
	}
	r, _ := s.Reply(ctx, bob, id, "a reply")
	if err := s.Delete(ctx, ann, id, 1); !errors.Is(err, ErrHasReplies) {
		t.Fatalf("deleting an opening post with replies: %v", err)
	}
	if err := s.Delete(ctx, ann, id, r.Num); !errors.Is(err, ErrNotYours) {
		t.Fatalf("deleting someone else's post: %v", err)
	}
	if err := s.Delete(ctx, bob, id, r.Num); err != nil {
		t.Fatal(err)
	}
	_, p, _ = s.Post(ctx, id, r.Num)
	h, _ := s.Head(ctx, id)
	if p.DeletedAt == nil || p.Body != "" || h.Replies != 0 || h.Posts != 2 {
		t.Fatalf("tombstone %+v, head replies %d posts %d", p, h.Replies, h.Posts)
	}
}

// headDown refuses every write of a topic's head while down is set: a
// crash between a post's write and its head's.
type headDown struct {
	storage.Backend
	down *atomic.Bool
}

var errHeadDown = errors.New("head not written")

func (b headDown) refuses(table string, e storage.Entity) bool {
	return b.down.Load() && table == PostsTable && e.RowKey == headKey
}

func (b headDown) Update(ctx context.Context, table string, e storage.Entity, mode storage.UpdateMode, ifMatch string) (string, error) {
	if b.refuses(table, e) {
		return "", errHeadDown
	}
	return b.Backend.Update(ctx, table, e, mode, ifMatch)
}

func (b headDown) Transact(ctx context.Context, table string, ops []storage.TxOp) error {
	for _, op := range ops {
		if b.refuses(table, op.Entity) {
			return errHeadDown
		}
	}
	return b.Backend.Transact(ctx, table, ops)
}

// TestDeletingATopicIsOneWrite: deleting an opening post that fails on
// the topic's head writes nothing (the topic is listed with its text),
// and deleting it again takes it away; an opening post tombstoned with
// its head left behind (by a delete before it was one write) is finished
// by deleting it again.
func TestDeletingATopicIsOneWrite(t *testing.T) {
	t.Parallel()
	down := &atomic.Bool{}
	s, _ := newForum(t, storetest.OpenWrapped(t, func(b storage.Backend) storage.Backend { return headDown{b, down} }))
	ctx := context.Background()
	listed := func() []string {
		t.Helper()
		page, _, err := s.ListSection(ctx, "general", ann.MemberKey, "")
		if err != nil {
			t.Fatal(err)
		}
		var titles []string
		for _, r := range page.Topics {
			titles = append(titles, r.Title)
		}
		return titles
	}
	tp, _ := s.CreateTopic(ctx, ann, "general", "Going away", "the opening post")
	id := tp.PartitionKey
	down.Store(true)
	if err := s.Delete(ctx, ann, id, 1); !errors.Is(err, errHeadDown) {
		t.Fatalf("delete with the head refused: %v", err)
	}
	down.Store(false)
	if _, p, err := s.Post(ctx, id, 1); err != nil || p.DeletedAt != nil || p.Body != "the opening post" {
		t.Fatalf("after the failed delete: %+v, %v", p, err)
	}
	if got := listed(); !slices.Equal(got, []string{"Going away"}) {
		t.Fatalf("listed after the failed delete: %v", got)
	}
	if err := s.Delete(ctx, ann, id, 1); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Head(ctx, id); !errors.Is(err, ErrNoTopic) || len(listed()) != 0 {
		t.Fatalf("after deleting again: head %v, listed %v", err, listed())
	}
	// Left behind by an earlier version: the tombstone without the head.
	old, _ := s.CreateTopic(ctx, ann, "general", "Half gone", "body")
	if _, err := storage.Change(ctx, s.posts, old.PartitionKey, postKey(1), ErrNoPost, func(p *PostRow) error { now := time.Now(); p.DeletedAt, p.Body = &now, ""; return nil }); err != nil {
		t.Fatal(err)
	}
	if err := s.Delete(ctx, ann, old.PartitionKey, 1); err != nil {
		t.Fatal(err)
	}
	if got := listed(); len(got) != 0 {
		t.Fatalf("a half-deleted topic deleted again is still listed: %v", got)
	}
	if sec, _ := s.Section(ctx, "general"); sec.Topics != 0 {
		t.Fatalf("section counts %d topics", sec.Topics)
	}
}

// fakeLog records moderation actions.
type fakeLog struct {
	mu      sync.Mutex
	actions []string
}

func (l *fakeLog) LogAction(_ context.Context, e LogEntry) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.actions = append(l.actions, e.Action+" "+e.TargetType)
	return nil
}

// TestMoveAndModerationLog: moving a topic moves its index rows and
// counts it in its new section only; every moderation action is logged.
func TestMoveAndModerationLog(t *testing.T) {
	t.Parallel()
	s, _ := newForum(t, storetest.Open(t))
	log := &fakeLog{}
	s.UseModerationLog(log)
	ctx := context.Background()
	if _, err := s.CreateSection(ctx, SectionInput{Slug: "music", Name: "Music"}); err != nil {
		t.Fatal(err)
	}
	tp, _ := s.CreateTopic(ctx, ann, "general", "Wrong place", "body")
	r, _ := s.Reply(ctx, bob, tp.PartitionKey, "indeed")
	if err := s.Move(ctx, bob, tp.PartitionKey, "music"); !errors.Is(err, ErrNotStaff) {
		t.Fatalf("a member moves: %v", err)
	}
	if err := s.Move(ctx, admin, tp.PartitionKey, "nowhere"); err == nil {
		t.Fatal("moved to a section that is not there")
	}
	if err := s.Move(ctx, admin, tp.PartitionKey, "music"); err != nil {
		t.Fatal(err)
	}
	if n := len(sectionRows(t, s, "general")); n != 0 {
		t.Errorf("%d rows left in general", n)
	}
	if rows := sectionRows(t, s, "music"); len(rows) != 1 || rows[0].Section != "music" {
		t.Errorf("music's rows: %+v", rows)
	}
	g, _ := s.Section(ctx, "general")
	m, _ := s.Section(ctx, "music")
	if g.Topics != 0 || m.Topics != 1 {
		t.Errorf("counts: general %d, music %d", g.Topics, m.Topics)
	}
	s.Pin(ctx, admin, tp.PartitionKey, true, nil)
	s.Lock(ctx, admin, tp.PartitionKey, true)
	s.Hide(ctx, admin, tp.PartitionKey, r.Num, true)
	s.Delete(ctx, admin, tp.PartitionKey, r.Num)
	want := []string{"forum.move topic", "forum.pin topic", "forum.lock topic", "forum.hide_post post", "forum.delete_post post"}
	if !slices.Equal(log.actions, want) {
		t.Errorf("logged %v", log.actions)
	}
}

// TestSearchAndLists: title search by word start, in Russian too, and
// not after a topic is deleted; the New list has topics never opened,
// the Unread list those opened with posts after the marker, both within
// the cutoff.
func TestSearchAndLists(t *testing.T) {
	t.Parallel()
	s, c := newForum(t, storetest.Open(t))
	ctx := context.Background()
	ru, _ := s.CreateTopic(ctx, ann, "general", "Кто едет в Лондон в декабре?", "body")
	en, _ := s.CreateTopic(ctx, ann, "general", "Parking near the hall", "body")
	old, _ := s.CreateTopic(ctx, ann, "general", "An old parking question", "body")
	for q, want := range map[string]int{"лонд": 1, "ЛОНДОН декабре": 1, "park": 2, "parking hall": 1, "nothing": 0} {
		rows, err := s.Search(ctx, q)
		if err != nil || len(rows) != want {
			t.Errorf("search %q: %d rows, %v", q, len(rows), err)
		}
	}
	if err := s.Delete(ctx, ann, old.PartitionKey, 1); err != nil {
		t.Fatal(err)
	}
	if rows, _ := s.Search(ctx, "park"); len(rows) != 1 {
		t.Errorf("a deleted topic is still found: %d", len(rows))
	}
	// Bob opens the English one; Ann replies to it.
	s.markRead(ctx, bob.MemberKey, en.PartitionKey, 1)
	c.advance(time.Minute)
	s.Reply(ctx, ann, en.PartitionKey, "more")
	now := c.now()
	newOnes, _, _, err := s.scanAll(ctx, bob.MemberKey, "", func(a ActivityRow, rd Reader) bool { return rd.unreadOf(a, now).New })
	if err != nil || len(newOnes) != 1 || newOnes[0].TopicID != ru.PartitionKey {
		t.Fatalf("new: %+v, %v", newOnes, err)
	}
	unread, _, _, _ := s.scanAll(ctx, bob.MemberKey, "", func(a ActivityRow, rd Reader) bool { u := rd.unreadOf(a, now); return !u.New && u.N > 0 })
	if len(unread) != 1 || unread[0].TopicID != en.PartitionKey {
		t.Fatalf("unread: %+v", unread)
	}
}

// TestListPagesPastTheirBound: a list page that reads its bound of rows
// without finding enough stops with a cursor, and the next page goes on
// from the last row read: a topic past the bound is found once.
func TestListPagesPastTheirBound(t *testing.T) {
	t.Parallel()
	s, c := newForum(t, storetest.Open(t))
	ctx := context.Background()
	var oldest string
	for i := range listScans*listFetch + 30 {
		c.advance(time.Second)
		tp, err := s.CreateTopic(ctx, admin, "general", fmt.Sprint("Topic ", i), "x")
		if err != nil {
			t.Fatal(err)
		}
		if i == 0 {
			oldest = tp.PartitionKey
		}
	}
	want := func(a ActivityRow, _ Reader) bool { return a.TopicID == oldest }
	rows, _, next, err := s.scanAll(ctx, bob.MemberKey, "", want)
	if err != nil || len(rows) != 0 || next == "" {
		t.Fatalf("first page: %d rows, next %q, %v", len(rows), next, err)
	}
	rows, _, next, err = s.scanAll(ctx, bob.MemberKey, next, want)
	if err != nil || len(rows) != 1 || rows[0].TopicID != oldest || next != "" {
		t.Fatalf("second page: %d rows, next %q, %v", len(rows), next, err)
	}
}

// TestMutedTopicsAreBounded: a reader mutes up to maxMuted topics; one
// more is ErrTooManyMuted and changes nothing (they still watch the
// topic, the list is as it was); once one of the muted topics is
// deleted, the next mute drops it and takes its place. Muting a topic
// twice keeps one entry.
func TestMutedTopicsAreBounded(t *testing.T) {
	t.Parallel()
	s, _ := newForum(t, storetest.Open(t))
	ctx := context.Background()
	topic, err := s.CreateTopic(ctx, ann, "general", "Loud topic", "first")
	if err != nil {
		t.Fatal(err)
	}
	id := topic.PartitionKey
	full := make([]string, maxMuted)
	for i := range full {
		m, err := s.CreateTopic(ctx, admin, "general", fmt.Sprint("Muted ", i), "x")
		if err != nil {
			t.Fatal(err)
		}
		full[i] = m.PartitionKey
	}
	b, err := json.Marshal(full)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := storage.Upsert(ctx, s.reads, ReadRow{PartitionKey: bob.MemberKey, RowKey: markAllKey, Muted: string(b)}); err != nil {
		t.Fatal(err)
	}
	if err := s.SetLevel(ctx, bob.MemberKey, id, Watching); err != nil {
		t.Fatal(err)
	}
	level := func() Level {
		rd, err := s.reader(ctx, bob.MemberKey, nil)
		if err != nil {
			t.Fatal(err)
		}
		l, err := s.Level(ctx, rd, id)
		if err != nil {
			t.Fatal(err)
		}
		return l
	}
	if err := s.SetLevel(ctx, bob.MemberKey, id, Muted); !errors.Is(err, ErrTooManyMuted) {
		t.Fatalf("the %dth mute: %v", maxMuted+1, err)
	}
	if l := level(); l != Watching {
		t.Errorf("after the refused mute the topic is %q; want it still watched", l)
	}
	if s.mutes(ctx, bob.MemberKey, topic) {
		t.Error("the refused mute is on the list")
	}
	if err := s.Delete(ctx, admin, full[7], 1); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if err := s.SetLevel(ctx, bob.MemberKey, id, Muted); err != nil {
			t.Fatalf("mute once a muted topic is gone: %v", err)
		}
	}
	r, _ := storage.Get[ReadRow](ctx, s.reads, bob.MemberKey, markAllKey)
	got := storage.ListOf[string](r.Muted)
	if len(got) != maxMuted || got[len(got)-1] != id || slices.Contains(got, full[7]) || level() != Muted {
		t.Errorf("after muting twice: %d muted, last %q, the deleted one kept %v", len(got), got[len(got)-1], slices.Contains(got, full[7]))
	}
}

// TestMutedSectionsAreBounded: a reader mutes up to maxMutedSections
// sections; one more is ErrTooManyMuted and changes nothing (they still
// watch it).
func TestMutedSectionsAreBounded(t *testing.T) {
	t.Parallel()
	s, _ := newForum(t, storetest.Open(t))
	ctx := context.Background()
	full := make([]string, maxMutedSections)
	for i := range full {
		full[i] = fmt.Sprint("gone-", i)
	}
	list, err := storage.ListText(full)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := storage.Upsert(ctx, s.reads, ReadRow{PartitionKey: bob.MemberKey, RowKey: markAllKey, MutedSections: list}); err != nil {
		t.Fatal(err)
	}
	if err := s.SetSectionLevel(ctx, bob.MemberKey, "general", Watching); err != nil {
		t.Fatal(err)
	}
	if err := s.SetSectionLevel(ctx, bob.MemberKey, "general", Muted); !errors.Is(err, ErrTooManyMuted) {
		t.Fatalf("one mute past the bound: %v", err)
	}
	rd, err := s.reader(ctx, bob.MemberKey, nil)
	if err != nil {
		t.Fatal(err)
	}
	if l, err := s.SectionLevel(ctx, rd, "general"); err != nil || l != Watching {
		t.Errorf("after the refused mute: %q, %v; want it still watched", l, err)
	}
}

// flakyPoster fails its first fails posts, then keeps what it is given.
type flakyPoster struct {
	fails  int
	posted []inbox.Notice
}

func (f *flakyPoster) Post(_ context.Context, n inbox.Notice) error {
	if f.fails > 0 {
		f.fails--
		return errors.New("inbox down")
	}
	f.posted = append(f.posted, n)
	return nil
}

// TestAFailedReminderIsTriedAgain: when the notice of a due reminder
// cannot be posted, the reminder stays set, so the task's retry sends
// it; once sent it is cleared, and a second run sends nothing.
func TestAFailedReminderIsTriedAgain(t *testing.T) {
	t.Parallel()
	s, c := newForum(t, storetest.Open(t))
	ctx := context.Background()
	poster := &flakyPoster{fails: 1}
	s.UseNotifier(poster)
	topic, err := s.CreateTopic(ctx, ann, "general", "Trains", "Which one?")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Reply(ctx, ann, topic.PartitionKey, "The 08:00."); err != nil {
		t.Fatal(err)
	}
	if err := s.Bookmark(ctx, bob, topic.PartitionKey, 2, true); err != nil {
		t.Fatal(err)
	}
	at := c.now().Add(time.Hour).UTC()
	if err := s.Remind(ctx, bob.MemberKey, topic.PartitionKey, 2, at); err != nil {
		t.Fatal(err)
	}
	task := reminderTask{MemberKey: bob.MemberKey, TopicID: topic.PartitionKey, Num: 2, At: at}
	if err := s.sendReminder(ctx, task); err == nil {
		t.Fatal("a failed post was not reported for a retry")
	}
	for range 2 {
		if err := s.sendReminder(ctx, task); err != nil {
			t.Fatal(err)
		}
	}
	r, _ := storage.Get[ReadRow](ctx, s.reads, bob.MemberKey, topic.PartitionKey)
	if len(poster.posted) != 1 || bookmarksOf(r)[0].RemindAt != nil {
		t.Errorf("posted %d, reminder left %v", len(poster.posted), bookmarksOf(r)[0].RemindAt)
	}
}
