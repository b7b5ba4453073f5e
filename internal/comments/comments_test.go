package comments_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/harmony/harmony/internal/auth"
	"github.com/harmony/harmony/internal/comments"
	"github.com/harmony/harmony/internal/formrule"
	"github.com/harmony/harmony/internal/storage"
	"github.com/harmony/harmony/internal/storage/quota"
	"github.com/harmony/harmony/internal/storage/storetest"
)

var (
	errMissing  = errors.New("no such comment")
	errNotYours = errors.New("not yours")
	errTooMany  = errors.New("too many")
)

type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(time.Second)
	return c.t
}

func newThread(t *testing.T, store *storage.Store) comments.Thread {
	c := &clock{t: time.Date(2030, 5, 17, 9, 0, 0, 0, time.UTC)}
	return comments.Thread{
		Table: store.Table("Comments"), Now: c.now,
		Limit: quota.Limit{Table: store.Table("Quota"), Max: 5, Window: time.Hour, Err: errTooMany}, LimitPrefix: "c|",
		Field: "body", Message: "bad", TooLong: "long",
		Missing: errMissing, NotYours: errNotYours,
	}
}

var (
	ann = &auth.Identity{MemberKey: "m:ann", DisplayName: "Ann"}
	bob = &auth.Identity{MemberKey: "m:bob", DisplayName: "Bob"}
)

// TestAThread: comments read newest first a page at a time, each once;
// bad text and a comment past the author's limit write nothing; the
// author edits, the author or staff deletes, the moderators hide; a key
// from an address that is not a comment's is missing.
func TestAThread(t *testing.T) {
	ctx := t.Context()
	store := storetest.Open(t, "Comments", "Quota")
	th := newThread(t, store)
	for _, tc := range []struct{ body, want string }{
		{"", "bad"}, {"  \n ", "bad"}, {strings.Repeat("ж", comments.MaxLength+1), "long"}, {"a\x00b", ""}, {"\xff", ""},
	} {
		_, err := th.Add(ctx, "T1", ann, tc.body)
		var fe formrule.FieldErrors
		// A control character or bad UTF-8 gets the shared message.
		if !errors.As(err, &fe) || fe["body"] == "" || (tc.want != "" && fe["body"] != tc.want) {
			t.Errorf("add %.20q: %v", tc.body, err)
		}
	}
	var added []comments.Row
	for i := range 5 {
		r, err := th.Add(ctx, "T1", ann, fmt.Sprintf("  comment %d  ", i))
		if err != nil {
			t.Fatal(err)
		}
		added = append(added, r)
	}
	if _, err := th.Add(ctx, "T1", ann, "one too many"); !errors.Is(err, errTooMany) {
		t.Fatalf("past the limit: %v", err)
	}
	if _, err := th.Add(ctx, "T2", bob, "another thread, another author"); err != nil {
		t.Fatal(err)
	}
	if rows, _ := storage.All[comments.Row](ctx, th.Table, storage.Query{PartitionKey: "T1"}); len(rows) != 5 {
		t.Fatalf("T1 holds %d rows, want the 5 taken", len(rows))
	}

	// Pages of two, newest first, each comment once.
	var got []string
	var start *storage.Continuation
	for pages := 0; ; pages++ {
		page, err := th.Page(ctx, "T1", start, 2)
		if err != nil || pages > 3 {
			t.Fatalf("page %d: %v", pages, err)
		}
		for _, r := range page.Rows {
			got = append(got, r.Body)
		}
		if start = page.Next; start == nil {
			break
		}
	}
	if want := "comment 4,comment 3,comment 2,comment 1,comment 0"; strings.Join(got, ",") != want {
		t.Fatalf("pages read %q, want %q", got, want)
	}

	first := added[0]
	if r, err := th.Get(ctx, "T1", comments.KeyFromPath(comments.PathKey(first.RowKey))); err != nil || r.ID() != first.ID() || !storage.IsID(r.ID()) {
		t.Fatalf("get through its address: %+v, %v", r, err)
	}
	for _, bad := range []string{"", "x", first.ID(), "123|" + first.ID(), strings.Replace(first.RowKey, "|", "-", 1)} {
		if _, err := th.Get(ctx, "T1", bad); !errors.Is(err, errMissing) {
			t.Errorf("get %q: %v", bad, err)
		}
	}

	if _, err := th.Edit(ctx, "T1", first.RowKey, bob, "mine now"); !errors.Is(err, errNotYours) {
		t.Fatalf("bob edits ann's: %v", err)
	}
	if _, err := th.Edit(ctx, "T1", first.RowKey, ann, ""); err == nil {
		t.Fatal("an edit to nothing")
	}
	edited, err := th.Edit(ctx, "T1", first.RowKey, ann, "comment 0, better")
	if err != nil || edited.EditedAt == nil || edited.Body != "comment 0, better" {
		t.Fatalf("edit: %+v, %v", edited, err)
	}
	if same, err := th.Edit(ctx, "T1", first.RowKey, ann, "comment 0, better"); err != nil || same.ETag != edited.ETag {
		t.Fatalf("the same text again: %v, etag %q → %q", err, edited.ETag, same.ETag)
	}

	if err := th.Hide(ctx, "T1", added[1].RowKey); err != nil {
		t.Fatal(err)
	}
	if err := th.Hide(ctx, "T1", added[1].RowKey); err != nil {
		t.Fatalf("hidden twice: %v", err)
	}
	if _, err := th.Edit(ctx, "T1", added[1].RowKey, ann, "back"); !errors.Is(err, errMissing) {
		t.Fatalf("editing a hidden comment: %v", err)
	}

	if err := th.Delete(ctx, "T1", added[2].RowKey, bob, false); !errors.Is(err, errNotYours) {
		t.Fatalf("bob deletes ann's: %v", err)
	}
	if err := th.Delete(ctx, "T1", added[2].RowKey, bob, true); err != nil {
		t.Fatalf("staff deletes: %v", err)
	}
	if err := th.Delete(ctx, "T1", added[2].RowKey, ann, false); !errors.Is(err, errMissing) {
		t.Fatalf("deleted again: %v", err)
	}
	if err := th.Delete(ctx, "T1", added[3].RowKey, ann, false); err != nil {
		t.Fatalf("the author deletes: %v", err)
	}
	page, err := th.Page(ctx, "T1", nil, 10)
	rows := page.Rows
	if err != nil || len(rows) != 3 || !rows[1].Hidden || rows[2].Body != "comment 0, better" {
		t.Fatalf("left: %+v, %v", rows, err)
	}
}

// TestRowsKeptOtherwiseAreReadPast: rows a table kept before threads
// were keyed (a bare ULID, "-" and more) sort before comments.KeyFrom, and
// a thread's first page starts after them.
func TestRowsKeptOtherwiseAreReadPast(t *testing.T) {
	ctx := t.Context()
	store := storetest.Open(t, "Comments", "Quota")
	th := newThread(t, store)
	for _, rk := range []string{"-ZZZZ", "01JTCY1XK0AAAAAAAAAAAAAAAA", "0"} {
		if _, err := storage.Insert(ctx, th.Table, comments.Row{PartitionKey: "T", RowKey: rk, Body: "old", CreatedAt: time.Now()}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := th.Add(ctx, "T", ann, "new"); err != nil {
		t.Fatal(err)
	}
	page, err := th.Page(ctx, "T", nil, 10)
	if err != nil || len(page.Rows) != 1 || page.Rows[0].Body != "new" || page.Next != nil {
		t.Fatalf("page: %+v, %v", page, err)
	}
}

// vanishing deletes one row of the partition the first transaction
// names before running it, as a delete meanwhile would.
type vanishing struct {
	storage.Backend
	once sync.Once
}

func (v *vanishing) Transact(ctx context.Context, table string, ops []storage.TxOp) error {
	v.once.Do(func() {
		_ = v.Backend.Delete(ctx, table, ops[7].Entity.PartitionKey, ops[7].Entity.RowKey, storage.AnyETag)
	})
	return v.Backend.Transact(ctx, table, ops)
}

// TestDeleteAll: a thread longer than a transaction goes whole, even when
// a comment of it went meanwhile; other threads stay.
func TestDeleteAll(t *testing.T) {
	ctx := t.Context()
	store := storetest.OpenWrapped(t, func(b storage.Backend) storage.Backend { return &vanishing{Backend: b} }, "Comments", "Quota")
	th := newThread(t, store)
	th.Limit = quota.Limit{}
	for i := range storage.MaxTxOps + 30 {
		if _, err := th.Add(ctx, "long", ann, fmt.Sprint(i)); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := th.Add(ctx, "other", ann, "stays"); err != nil {
		t.Fatal(err)
	}
	if err := th.DeleteAll(ctx, "long"); err != nil {
		t.Fatal(err)
	}
	if rows, _ := storage.All[comments.Row](ctx, th.Table, storage.Query{PartitionKey: "long"}); len(rows) != 0 {
		t.Fatalf("%d comments left", len(rows))
	}
	if rows, _ := storage.All[comments.Row](ctx, th.Table, storage.Query{PartitionKey: "other"}); len(rows) != 1 {
		t.Fatal("another thread went too")
	}
}

// threadText is thread "T" of th as its first page reads: each comment's
// text ("(deleted)" for one marked so), a reply's indented, joined by
// commas.
func threadText(t *testing.T, th comments.Thread) string {
	t.Helper()
	page, err := th.Page(t.Context(), "T", nil, 20)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, r := range page.Rows {
		b := r.Body
		if r.Deleted {
			b = "(deleted)"
		}
		if r.Parent() != "" {
			b = "  " + b
		}
		out = append(out, b)
	}
	return strings.Join(out, ",")
}

// TestReplies: a reply follows its comment, the oldest reply first, and
// a reply to a reply answers the same comment; a comment hidden, or a
// thread without replies, takes none; a comment with replies that is
// deleted stays, marked and without its text, until its last reply goes.
func TestReplies(t *testing.T) {
	ctx := t.Context()
	store := storetest.Open(t, "Comments", "Quota")
	th := newThread(t, store)
	th.Limit = quota.Limit{}
	if _, _, err := th.Reply(ctx, "T", "x", bob, "no thread takes replies unless it says"); !errors.Is(err, errMissing) {
		t.Fatalf("a reply where replies are off: %v", err)
	}
	th.Replies = true
	add := func(by *auth.Identity, body string) comments.Row {
		t.Helper()
		r, err := th.Add(ctx, "T", by, body)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	reply := func(to comments.Row, by *auth.Identity, body string) comments.Row {
		t.Helper()
		_, r, err := th.Reply(ctx, "T", to.RowKey, by, body)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	bodies := func() string { return threadText(t, th) }
	first := add(ann, "first")
	second := add(ann, "second")
	r1 := reply(first, bob, "r1")
	r2 := reply(first, ann, "r2")
	r3 := reply(r1, ann, "r3 to r1")
	if r3.Parent() != first.RowKey || first.Parent() != "" {
		t.Fatalf("r3 answers %q, want the first comment %q", r3.Parent(), first.RowKey)
	}
	if got, want := bodies(), "second,first,  r1,  r2,  r3 to r1"; got != want {
		t.Fatalf("the thread reads %q, want %q", got, want)
	}
	if r, err := th.Get(ctx, "T", comments.KeyFromPath(comments.PathKey(r3.RowKey))); err != nil || r.ID() != r3.ID() || !storage.IsID(r.ID()) {
		t.Fatalf("a reply through its address: %+v, %v", r, err)
	}
	for _, bad := range []string{first.RowKey + "|1|" + r1.ID(), first.RowKey + "|x|" + r1.ID(), first.RowKey + "|" + strings.Repeat("0", 19) + "|" + r1.ID(), r1.RowKey + "|x"} {
		if comments.ValidKey(bad) {
			t.Errorf("%q taken for a key", bad)
		}
	}
	if _, _, err := th.Reply(ctx, "T", first.RowKey, bob, " "); err == nil {
		t.Fatal("a blank reply")
	}
	if err := th.Hide(ctx, "T", second.RowKey); err != nil {
		t.Fatal(err)
	}
	if _, _, err := th.Reply(ctx, "T", second.RowKey, bob, "to a hidden one"); !errors.Is(err, errMissing) {
		t.Fatalf("a reply to a hidden comment: %v", err)
	}

	if err := th.Delete(ctx, "T", first.RowKey, ann, false); err != nil {
		t.Fatal(err)
	}
	if got, want := bodies(), "second,(deleted),  r1,  r2,  r3 to r1"; got != want {
		t.Fatalf("after deleting the first, the thread reads %q, want %q", got, want)
	}
	if _, err := th.Edit(ctx, "T", first.RowKey, ann, "back"); !errors.Is(err, errMissing) {
		t.Errorf("editing a deleted comment: %v", err)
	}
	if _, _, err := th.Reply(ctx, "T", r1.RowKey, bob, "to a deleted one"); !errors.Is(err, errMissing) {
		t.Errorf("a reply to a deleted comment: %v", err)
	}
	if err := th.Delete(ctx, "T", first.RowKey, ann, false); !errors.Is(err, errMissing) {
		t.Errorf("deleted twice: %v", err)
	}
	for _, r := range []comments.Row{r1, r2} {
		if err := th.Delete(ctx, "T", r.RowKey, map[string]*auth.Identity{ann.MemberKey: ann, bob.MemberKey: bob}[r.AuthorKey], false); err != nil {
			t.Fatal(err)
		}
	}
	if got, want := bodies(), "second,(deleted),  r3 to r1"; got != want {
		t.Fatalf("with one reply left the thread reads %q, want %q", got, want)
	}
	if err := th.Delete(ctx, "T", r3.RowKey, bob, true); err != nil {
		t.Fatal(err)
	}
	if got, want := bodies(), "second"; got != want {
		t.Fatalf("with the last reply gone the thread reads %q, want %q", got, want)
	}
}

// interleaved is a store that runs another request once, just before the
// next call when matches ("delete", "update" or "insert" and the table):
// a second person's request landing in between on another instance.
type interleaved struct {
	storage.Backend
	mu   sync.Mutex
	when string
	do   func()
}

func (b *interleaved) before(when string, do func()) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.when, b.do = when, do
}

func (b *interleaved) fire(op string) {
	b.mu.Lock()
	do := b.do
	if do == nil || op != b.when {
		b.mu.Unlock()
		return
	}
	b.when, b.do = "", nil
	b.mu.Unlock()
	do()
}

func (b *interleaved) Delete(ctx context.Context, table, pk, rk, ifMatch string) error {
	b.fire("delete " + table)
	return b.Backend.Delete(ctx, table, pk, rk, ifMatch)
}

func (b *interleaved) Update(ctx context.Context, table string, e storage.Entity, mode storage.UpdateMode, ifMatch string) (string, error) {
	b.fire("update " + table)
	return b.Backend.Update(ctx, table, e, mode, ifMatch)
}

// TestRepliesRacingADelete: a comment deleted while a reply to it is
// written, or while its last reply is deleted, leaves the thread as one
// of them alone would: never a reply whose comment is gone (it would
// read as another comment's), nor "deleted" with no reply under it.
func TestRepliesRacingADelete(t *testing.T) {
	ctx := t.Context()
	bodies := func(th comments.Thread) string { return threadText(t, th) }
	open := func() (comments.Thread, *interleaved) {
		b := &interleaved{}
		store := storetest.OpenWrapped(t, func(inner storage.Backend) storage.Backend { b.Backend = inner; return b }, "Comments", "Quota")
		th := newThread(t, store)
		th.Limit, th.Replies = quota.Limit{}, true
		return th, b
	}

	t.Run("a reply written as its comment goes", func(t *testing.T) {
		th, b := open()
		c, err := th.Add(ctx, "T", ann, "question")
		if err != nil {
			t.Fatal(err)
		}
		// Ann's delete found no reply; Bob's reply comes before her
		// delete's write.
		var replyErr error
		b.before("delete Comments", func() {
			_, _, replyErr = th.Reply(ctx, "T", c.RowKey, bob, "answer")
		})
		if err := th.Delete(ctx, "T", c.RowKey, ann, false); err != nil {
			t.Fatal(err)
		}
		want := "(deleted),  answer" // the reply stands, under its comment
		if replyErr != nil {
			want = "" // or the reply was refused and took itself back
		}
		if got := bodies(th); got != want {
			t.Errorf("the thread reads %q (the reply: %v), want %q", got, replyErr, want)
		}
	})

	t.Run("the last reply deleted as its comment is", func(t *testing.T) {
		th, b := open()
		c, err := th.Add(ctx, "T", ann, "question")
		if err != nil {
			t.Fatal(err)
		}
		_, r, err := th.Reply(ctx, "T", c.RowKey, bob, "answer")
		if err != nil {
			t.Fatal(err)
		}
		// Ann's delete found the reply; Bob deletes it before her
		// delete marks the comment.
		b.before("update Comments", func() {
			if err := th.Delete(ctx, "T", r.RowKey, bob, false); err != nil {
				t.Error(err)
			}
		})
		if err := th.Delete(ctx, "T", c.RowKey, ann, false); err != nil {
			t.Fatal(err)
		}
		if got := bodies(th); got != "" {
			t.Errorf("with the comment and its only reply deleted the thread reads %q, want nothing", got)
		}
	})
}
