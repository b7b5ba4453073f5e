package forum

import (
	"github.com/labstack/echo/v4"

	"github.com/harmony/harmony/internal/i18n"
	"github.com/harmony/harmony/internal/storage"
	"github.com/harmony/harmony/internal/web"
)

// feedSize is how many topics a feed carries.
const feedSize = 30

// feed is GET /forum/feed.xml (the latest topics across the forum) and
// GET /forum/:section/feed.xml (a section's): RSS of the most recently
// active topics, one query of the activity index.
func (s *Service) feed(c echo.Context) error {
	ctx := c.Request().Context()
	title, link, pk := i18n.T(ctx, "forum.home.heading"), s.baseURL+"/forum", allPart
	names := s.sectionNames(ctx)
	if slug := c.Param("section"); slug != "" {
		sec, err := s.Section(ctx, slug)
		if err != nil {
			return err
		}
		title, link, pk = sec.Label(ctx), s.baseURL+sectionURL(slug), sectionPart(slug)
	}
	q := storage.Query{PartitionKey: pk, Limit: feedSize}
	if pk != allPart {
		q.RowKeyFrom = "1|" // by activity; pins are not news
	}
	rows, _, err := storage.Take[ActivityRow](ctx, s.activity, q, feedSize)
	if err != nil {
		return err
	}
	f := web.Feed{Title: title, Link: link, Description: i18n.T(ctx, "forum.home.lead")}
	for _, a := range rows {
		if names[a.Section] == "" {
			continue
		}
		f.Items = append(f.Items, web.FeedItem{
			Title: a.Title, Link: s.baseURL + topicURL(a.TopicID), Published: a.LastActivityAt,
			Description: i18n.T(ctx, "forum.feed_item", "name", shownName(ctx, a.LastAuthorName), "section", names[a.Section]),
		})
	}
	return web.ServeFeed(c, f)
}
