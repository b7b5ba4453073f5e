package forum

import (
	"maps"

	"github.com/a-h/templ"
	"github.com/labstack/echo/v4"

	"github.com/harmony/harmony/internal/storage"
	views "github.com/harmony/harmony/views/forum"
)

// homeTopics is how many topics the home page's forum card shows.
const homeTopics = 3

// HomeCard is the home page's "In the forum" for someone signed in to an
// account (web.HomeCarder): the most recently active topics across the
// forum, each with what the person has not read, like the forum's own
// lists. It costs a query of the sections (to leave out archived ones),
// one of the activity index (a few spare rows stand in for topics of
// archived sections and topics the person muted), and the person's read
// markers of those topics.
func (s *Service) HomeCard(c echo.Context) (templ.Component, error) {
	me := person(c)
	if me.MemberKey == "" {
		return nil, nil
	}
	ctx := c.Request().Context()
	names := s.sectionNames(ctx)
	rows, _, err := storage.Take[ActivityRow](ctx, s.activity, storage.Query{PartitionKey: allPart}, 2*homeTopics)
	if err != nil {
		return nil, err
	}
	var open []ActivityRow
	for _, a := range rows {
		if names[a.Section] != "" {
			open = append(open, a)
		}
	}
	read := map[string]bool{}
	var ids []string
	for _, a := range open[:min(homeTopics, len(open))] {
		read[a.TopicID] = true
		ids = append(ids, a.TopicID)
	}
	rd, err := s.reader(ctx, me.MemberKey, ids)
	if err != nil {
		return nil, err
	}
	// A muted topic gives its place to the next, whose marker is read
	// only then.
	var shown []ActivityRow
	var more []string
	for _, a := range open {
		if !rd.Muted[a.TopicID] && !rd.MutedSections[a.Section] && len(shown) < homeTopics {
			shown = append(shown, a)
			if !read[a.TopicID] {
				more = append(more, a.TopicID)
			}
		}
	}
	if len(more) > 0 {
		extra, err := s.readMarkers(ctx, me.MemberKey, more, false)
		if err != nil {
			return nil, err
		}
		maps.Copy(rd.Markers, extra.Markers)
	}
	var items []views.TopicItem
	for _, a := range shown {
		it := s.topicItem(c, a, rd, names[a.Section])
		// The card is about what is new: no pins, counts or openers.
		it.Pinned, it.Replies, it.Author = false, -1, ""
		items = append(items, it)
	}
	return views.HomeCard(items), nil
}
