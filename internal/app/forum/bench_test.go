package forum

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/harmony/harmony/internal/storage"
	"github.com/harmony/harmony/internal/storage/storetest"
)

// BenchmarkForumPages measures the forum's pages (issue 14), on the
// embedded store and, with HARMONY_AZURITE set, on Azurite:
//
//   - a topic with 10 and with 10,000 replies: its first page, page 200
//     (posts 3,981–4,000; the last page of the small one) and the page
//     that opens at a reader's first unread post (after post 5,000; post
//     6 of the small one). Timed: what the topic page reads, the head,
//     the reader's marker, the window of posts and the reader's likes in
//     it (Head, reader, Posts, LikedBy).
//   - a section with 100 and 100,000 topics: its first page and page 50
//     (page 3, the last full one, of the small one), read by a member
//     (ListSection, with the reader's markers of the page's topics).
//   - the Unread list of a reader who has read all of 5,000 topics
//     active in the last 14 days: the worst case, a page that finds
//     nothing and stops at its bound (scanAll).
//
// It reports p50 and p90 per page, table queries, point reads and all
// calls per page. Only the rows the timed calls read are seeded, in
// transactions of up to 100 rows of one partition. The embedded store
// is seeded once into os.TempDir()/harmony-bench-forum-v<k> and reused;
// Azurite's tables are seeded once per process. docs/PERFORMANCE.md has
// the figures and the command (scripts/bench forum).
func BenchmarkForumPages(b *testing.B) {
	for _, backend := range storetest.BenchBackends() {
		s := benchForum(b, backend)
		for _, n := range []int{10, 10_000} {
			id := benchTopicID(n)
			pages := map[string]int{"first": 1, "deep": min(3981, n-postsPerPage+1), "unread": min(5000, n/2)}
			for _, page := range []string{"first", "deep", "unread"} {
				b.Run(fmt.Sprintf("%s/topic=%d/%s", backend, n, page), func(b *testing.B) {
					reader := "auth:bench-reader"
					if page == "unread" {
						reader = fmt.Sprintf("auth:bench-unread-%d", n)
					}
					storetest.BenchPages(b, "page", func(ctx context.Context) (int, error) {
						return benchTopicPage(ctx, s, id, reader, pages[page])
					})
				})
			}
		}
		for _, n := range []int{100, 100_000} {
			section := fmt.Sprintf("bench-%d", n)
			deep := benchCursor(b, s, section, min(49, n/pageSize-1))
			for page, token := range map[string]string{"first": "", "deep": deep} {
				b.Run(fmt.Sprintf("%s/section=%d/%s", backend, n, page), func(b *testing.B) {
					storetest.BenchPages(b, "page", func(ctx context.Context) (int, error) {
						p, _, err := s.ListSection(ctx, section, "auth:bench-reader", token)
						return len(p.Topics), err
					})
				})
			}
		}
		b.Run(backend+"/unread-list/read=5000", func(b *testing.B) {
			storetest.BenchPages(b, "page", func(ctx context.Context) (int, error) {
				rows, _, _, err := s.scanAll(ctx, benchReader, "", func(a ActivityRow, rd Reader) bool {
					u := rd.unreadOf(a, s.now())
					return !u.New && u.N > 0
				})
				return len(rows), err
			})
		})
	}
}

// benchReader has read every one of the unread list's 5,000 topics.
const benchReader = "auth:bench-all-read"

// benchTopicPage is what a topic page reads: the head, the reader's
// marker, posts from..from+postsPerPage-1 and the reader's likes there.
func benchTopicPage(ctx context.Context, s *Service, id, reader string, from int) (int, error) {
	t, err := s.Head(ctx, id)
	if err != nil {
		return 0, err
	}
	if _, err := s.reader(ctx, reader, []string{id}); err != nil {
		return 0, err
	}
	to := min(from+postsPerPage-1, t.Posts)
	posts, err := s.Posts(ctx, id, from, to)
	if err != nil {
		return 0, err
	}
	_, err = s.LikedBy(ctx, id, reader, from, to)
	return len(posts), err
}

// benchCursor follows a section's list for pages pages and returns the
// next page's cursor.
func benchCursor(b *testing.B, s *Service, section string, pages int) string {
	token := ""
	for i := range pages {
		p, _, err := s.ListSection(context.Background(), section, "auth:bench-reader", token)
		if err != nil {
			b.Fatal(err)
		}
		if p.Next == "" {
			b.Fatalf("section %s ended after %d pages", section, i+1)
		}
		token = p.Next
	}
	return token
}

// forumBenchVersion names the seeded store on disk; bump it when the
// generator or the rows change.
const forumBenchVersion = 1

// benchNow is the forum's clock in the benchmark.
var benchNow = time.Date(2030, 5, 17, 9, 30, 0, 0, time.UTC)

// benchForum opens the seeded forum on kind's store.
func benchForum(b *testing.B, kind string) *Service {
	b.Helper()
	cursors, err := storage.NewCursors([]byte("0123456789abcdef0123456789abcdef"))
	if err != nil {
		b.Fatal(err)
	}
	now := func() time.Time { return benchNow }
	tables := (&Service{}).Tables()
	store := storetest.SeededStore(b, kind, fmt.Sprintf("forum-v%d", forumBenchVersion), tables, func(st *storage.Store) error {
		return seedForum(New(st, cursors, nil, now))
	})
	return New(store, cursors, nil, now)
}

// benchTopicID is the id of the benchmark's topic with n replies.
func benchTopicID(n int) string {
	return newTopicIDAt(benchNow.Add(-time.Duration(n) * time.Hour))
}

// newTopicIDAt is a topic id at t with a fixed entropy, so the seed and
// the benchmark agree.
func newTopicIDAt(t time.Time) string {
	id := newTopicID(t)
	return id[:10] + "0000000000000000"
}

// seedForum writes the benchmark's rows: two topics (10 and 10,000
// replies, some liked), two sections' lists (100 and 100,000 topics),
// and 5,000 recent topics in the whole forum's list that benchReader has
// read, with the markers the topic pages' readers need.
func seedForum(s *Service) error {
	ctx := context.Background()
	var ops []storage.TxOp
	flush := func(t *storage.Table) error {
		if len(ops) == 0 {
			return nil
		}
		err := t.Transact(ctx, ops)
		ops = ops[:0]
		return err
	}
	add := func(t *storage.Table, v any) error {
		e, err := storage.Marshal(v)
		if err != nil {
			return err
		}
		if len(ops) > 0 && ops[0].Entity.PartitionKey != e.PartitionKey || len(ops) == storage.MaxTxOps {
			if err := flush(t); err != nil {
				return err
			}
		}
		ops = append(ops, storage.TxOp{Kind: storage.TxInsert, Entity: e})
		return nil
	}
	for _, n := range []int{10, 10_000} {
		id := benchTopicID(n)
		start := benchNow.Add(-time.Duration(n) * time.Hour)
		recent := ""
		for i := 1; i <= n+1; i++ {
			at := start.Add(time.Duration(i) * time.Minute)
			if i > n+1-recentKeep {
				recent = withPost(recent, i, at)
			}
			if err := add(s.posts, PostRow{PartitionKey: id, RowKey: postKey(i), Num: i, AuthorKey: "auth:w", AuthorName: "Writer", Body: fmt.Sprintf("Post **%d** of the benchmark's topic.", i), CreatedAt: at, Likes: i % 3}); err != nil {
				return err
			}
		}
		for i := 1; i <= n+1; i += 3 {
			if err := add(s.posts, LikeRow{PartitionKey: id, RowKey: likeKey(i, "auth:bench-reader"), At: start}); err != nil {
				return err
			}
		}
		last := start.Add(time.Duration(n+1) * time.Minute)
		if err := add(s.posts, TopicRow{PartitionKey: id, RowKey: headKey, AuthorKey: "auth:w", Summary: Summary{Section: "bench-100", Title: fmt.Sprintf("A topic with %d replies", n), AuthorName: "Writer", Posts: n + 1, Replies: n, LastActivityAt: last, LastAuthorName: "Writer", Recent: recent, CreatedAt: start}}); err != nil {
			return err
		}
		if err := flush(s.posts); err != nil {
			return err
		}
		at := benchNow
		if err := add(s.reads, ReadRow{PartitionKey: fmt.Sprintf("auth:bench-unread-%d", n), RowKey: id, ReadNum: min(5000, n/2) - 1, At: &at}); err != nil {
			return err
		}
		if err := flush(s.reads); err != nil {
			return err
		}
	}
	for _, n := range []int{100, 100_000} {
		section := fmt.Sprintf("bench-%d", n)
		if _, err := s.CreateSection(ctx, SectionInput{Slug: section, Name: section}); err != nil {
			return err
		}
		for i := range n {
			at := benchNow.Add(-time.Duration(i) * time.Minute)
			id := newTopicIDAt(at)
			row := ActivityRow{PartitionKey: sectionPart(section), RowKey: activityKey(i < 3, at, id), TopicID: id, Summary: Summary{Section: section, Title: fmt.Sprintf("Topic %d", i), AuthorName: "Writer", Replies: i % 40, Posts: i%40 + 1, LastActivityAt: at, LastAuthorName: "Writer", Pinned: i < 3, Recent: withPost("", i%40+1, at), CreatedAt: at}}
			if err := add(s.activity, row); err != nil {
				return err
			}
		}
		if err := flush(s.activity); err != nil {
			return err
		}
	}
	for i := range 5000 {
		at := benchNow.Add(-time.Duration(i) * 3 * time.Minute)
		id := newTopicIDAt(at.Add(time.Second))
		row := ActivityRow{PartitionKey: allPart, RowKey: allKey(at, id), TopicID: id, Summary: Summary{Section: "bench-100", Title: fmt.Sprintf("Recent topic %d", i), AuthorName: "Writer", Replies: 4, Posts: 5, LastActivityAt: at, LastAuthorName: "Writer", Recent: withPost("", 5, at), CreatedAt: at.Add(-time.Hour)}}
		if err := add(s.activity, row); err != nil {
			return err
		}
	}
	if err := flush(s.activity); err != nil {
		return err
	}
	at := benchNow
	for i := range 5000 {
		id := newTopicIDAt(benchNow.Add(-time.Duration(i) * 3 * time.Minute).Add(time.Second))
		if err := add(s.reads, ReadRow{PartitionKey: benchReader, RowKey: id, ReadNum: 5, At: &at}); err != nil {
			return err
		}
	}
	return flush(s.reads)
}
