package forum

import (
	"cmp"
	"context"
	"errors"
	"net/http"
	"slices"
	"strconv"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/harmony/harmony/internal/fault"
	"github.com/harmony/harmony/internal/i18n"
	"github.com/harmony/harmony/internal/richtext"
	"github.com/harmony/harmony/internal/storage"
	"github.com/harmony/harmony/internal/web"
	views "github.com/harmony/harmony/views/forum"
)

// Bookmarks. A reader bookmarks posts to come back to, as in Discourse,
// and /forum/bookmarks lists them, newest first. A topic's bookmarks live
// on the reader's read marker for it (ReadRow), which the topic page
// reads anyway: showing them there costs nothing, and the list is one
// filtered query of the reader's markers. Each keeps the topic's title,
// the author and the start of the post as they were when it was made.

// maxBookmarksPerTopic bounds one reader's bookmarks in one topic.
const maxBookmarksPerTopic = 20

// ErrTooManyBookmarks is one bookmark more than maxBookmarksPerTopic in
// a topic (409).
var ErrTooManyBookmarks = fault.New(http.StatusConflict, "forum.error.bookmarks", "forum: too many bookmarks in one topic", "max", maxBookmarksPerTopic)

// Bookmark is one bookmarked post; RemindAt, when set, is when a
// reminder of it reaches the reader's inbox (reminders.go). AuthorKey is
// whose name Author is (bookmarks of before it have none), so the
// reminder's notice says whose name it quotes (inbox.Notice.Names).
type Bookmark struct {
	Num       int        `json:"n"`
	At        time.Time  `json:"at"`
	Title     string     `json:"t"`
	Author    string     `json:"a"`
	AuthorKey string     `json:"ak,omitempty"`
	Excerpt   string     `json:"x"`
	RemindAt  *time.Time `json:"r,omitempty"`
}

// bookmarksOf reads r's Bookmarks; a value it cannot read is none.
func bookmarksOf(r ReadRow) []Bookmark { return storage.ListOf[Bookmark](r.Bookmarks) }

// Bookmark bookmarks post num of topicID for by, or (on false) takes the
// bookmark away. A deleted or hidden post takes no bookmark; taking one
// away always works.
func (s *Service) Bookmark(ctx context.Context, by Person, topicID string, num int, on bool) error {
	t, p, err := s.Post(ctx, topicID, num)
	if err != nil {
		return err
	}
	if on && (p.DeletedAt != nil || p.Hidden) {
		return ErrNoPost
	}
	_, err = storage.Modify(ctx, s.reads, by.MemberKey, topicID, func(r *ReadRow, _ bool) error {
		list := bookmarksOf(*r)
		i := slices.IndexFunc(list, func(b Bookmark) bool { return b.Num == num })
		list, err := storage.Toggled(list, i, on, maxBookmarksPerTopic, ErrTooManyBookmarks, func() Bookmark {
			return Bookmark{Num: num, At: s.now().UTC(), Title: t.Title, Author: p.AuthorName, AuthorKey: p.AuthorKey, Excerpt: richtext.Plain(p.Body, 140)}
		})
		if err != nil {
			return err
		}
		r.Bookmarked = len(list) > 0
		r.Bookmarks, err = storage.ListText(list)
		return err
	})
	if errors.Is(err, storage.ErrNoChange) {
		return nil
	}
	return err
}

// TopicBookmark is a bookmark with the topic it is in.
type TopicBookmark struct {
	TopicID string
	Bookmark
}

// Bookmarks are memberKey's bookmarks, newest first: one query of their
// read markers that hold any.
func (s *Service) Bookmarks(ctx context.Context, memberKey string) ([]TopicBookmark, error) {
	marks, err := storage.AllListed[ReadRow, Bookmark](ctx, s.reads, memberKey, "bookmarked", "bookmarks", func(r ReadRow) (string, string) { return r.RowKey, r.Bookmarks })
	out := make([]TopicBookmark, len(marks))
	for i, m := range marks {
		out[i] = TopicBookmark{TopicID: m.RowKey, Bookmark: m.Item}
	}
	slices.SortFunc(out, func(a, b TopicBookmark) int { return cmp.Compare(b.At.UnixNano(), a.At.UnixNano()) })
	return out, err
}

// bookmarks is GET /forum/bookmarks: the reader's bookmarks.
func (s *Service) bookmarks(c echo.Context) error {
	ctx := c.Request().Context()
	list, err := s.Bookmarks(ctx, person(c).MemberKey)
	if err != nil {
		return err
	}
	items := make([]views.BookmarkItem, len(list))
	for i, b := range list {
		base := topicURL(b.TopicID) + "/posts/" + strconv.Itoa(b.Num)
		items[i] = views.BookmarkItem{
			URL: postURL(b.TopicID, b.Num), Title: b.Title, Author: shownName(c.Request().Context(), b.Author), Excerpt: b.Excerpt, Num: b.Num,
			When: when(c, b.At), RemoveURL: base + "/bookmark", RemindURL: base + "/remind",
		}
		if b.RemindAt != nil {
			items[i].Reminder = when(c, *b.RemindAt)
		}
	}
	return web.Render(c, http.StatusOK, web.Page{Title: i18n.T(ctx, "forum.bookmarks.heading"), Section: "forum", Content: views.Bookmarks(items)})
}
