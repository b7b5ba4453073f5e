package blog

import (
	"cmp"
	"context"
	"math"
	"net/http"
	"slices"

	"github.com/labstack/echo/v4"

	"github.com/harmony/harmony/internal/i18n"
	"github.com/harmony/harmony/internal/storage"
	"github.com/harmony/harmony/internal/web"
	views "github.com/harmony/harmony/views/blog"
)

// tagsURL is the page of every tag readers see.
const tagsURL = "/blog/tags"

// TagCount is a tag and how many of the posts readers see carry it.
type TagCount struct {
	Tag   string
	Posts int
}

// Tags are the tags of the posts readers see at now, the most used
// first, then by name. It reads the cards of the "all" partition from
// now on back, their tags alone: one query per 1000 published posts, no
// post and no text. Drafts and posts being deleted have no card there,
// and a post scheduled for later is ahead of now, so neither is counted
// until readers see it. No copy is kept between requests: the page costs
// what a page of the listing does, and visitors share it (web.Shared).
func (s *Service) Tags(ctx context.Context) ([]TagCount, error) {
	counts := map[string]int{}
	q := storage.Query{PartitionKey: allPart, RowKeyFrom: storage.ReverseTicks(s.now()), Select: []string{"tags"}}
	err := s.index.QueryAll(ctx, q, func(e storage.Entity) error {
		tags, _ := e.Props["tags"].(string)
		for _, t := range (Card{Tags: tags}).TagList() {
			counts[t]++
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	out := make([]TagCount, 0, len(counts))
	for t, n := range counts {
		out = append(out, TagCount{Tag: t, Posts: n})
	}
	slices.SortFunc(out, func(a, b TagCount) int {
		return cmp.Or(cmp.Compare(b.Posts, a.Posts), cmp.Compare(a.Tag, b.Tag))
	})
	return out, nil
}

// tags is GET /blog/tags: every tag readers see, each a link to its
// posts, sized by how many carry it.
func (s *Service) tags(c echo.Context) error {
	ctx := c.Request().Context()
	all, err := s.Tags(ctx)
	if err != nil {
		return err
	}
	p := views.TagsProps{BlogURL: homeURL}
	for _, t := range all {
		p.Tags = append(p.Tags, views.TagCount{Label: t.Tag, Href: tagURL(t.Tag), Posts: t.Posts, Weight: tagWeight(t.Posts, all[0].Posts)})
	}
	return web.Render(c, http.StatusOK, web.Page{Title: i18n.T(ctx, "blog.tags.heading") + " · " + i18n.T(ctx, "module.blog.name"), Section: "blog", Content: views.Tags(p)})
}

// tagWeight is the size in the cloud, 1 to 4, of a tag on n posts when
// the most used is on most: a log scale, as tag clouds use, so one
// much-used tag does not shrink every other to the smallest size, up to
// most or 8, whichever is more, so a small blog's tag on two posts is not
// drawn as large as one on dozens.
func tagWeight(n, most int) int {
	return 1 + int(math.Round(3*math.Log(float64(n))/math.Log(float64(max(most, 8)))))
}
