package forum

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/harmony/harmony/internal/memberdata"
	"github.com/harmony/harmony/internal/storage"
)

// Deleting an account. A member's topics and posts stay, written by
// memberdata.Forgotten with no name kept: on the posts, on the topic
// heads and their TopicActivityIndex rows (list and search rows follow
// the head), and as a topic's last poster. Lists keep names alone, so
// a forgotten author's name there is "" and reads "Deleted member"
// (shownName). Their likes go with the posts' counts, as an unlike
// does, and their poll votes with the polls' counts, as taking a vote
// back does; their watches of topics and sections, their read markers,
// bookmarks (and so reminders) and mutes, their participant rows,
// their moderation of sections and their rate-limit rows go, and
// others' bookmarks of their posts keep no name (forgetBookmarked, from
// forgetAuthorship's one read of their posts). Their rows in the
// topics (heads, posts, likes, watches, participant rows) are found
// through their footprints (memberdata.Footprints: the topics they
// wrote in, each recorded before their first row there), one query of
// each such topic instead of a scan of every topic; the footprints go
// last, so they lead the next run to what a run cut short left.

// shownName is the name a list shows for an author: "Deleted member"
// for a forgotten one, whose name lists keep as "" (every member has a
// name).
func shownName(ctx context.Context, name string) string {
	if name == "" {
		return memberdata.Name(ctx, memberdata.Forgotten, "")
	}
	return name
}

// postName is the name a post shows for its author.
func postName(ctx context.Context, p PostRow) string {
	return memberdata.Name(ctx, p.AuthorKey, p.AuthorName)
}

// byAuthor is the query of the heads and posts memberKey wrote: a scan.
func byAuthor(memberKey string) storage.Query {
	return storage.Query{Scan: true, Filters: []storage.Filter{{Name: "authorKey", Op: storage.Eq, Value: memberKey}}}
}

// rowKeyIs is the query of the rows, in any partition, whose RowKey is rk.
func rowKeyIs(rk string) storage.Query {
	return storage.Query{Scan: true, Filters: []storage.Filter{{Name: "RowKey", Op: storage.Eq, Value: rk}}}
}

// theirs runs q, a scan of t for memberKey's rows: through their
// footprints in the posts' table (the topics they wrote in), whole in
// the sections' (a few rows).
func (s *Service) theirs(ctx context.Context, t *storage.Table, memberKey string, q storage.Query, each func(storage.Entity) error) error {
	if t == s.posts {
		return s.marks.QueryAll(ctx, t, memberKey, q, each)
	}
	return t.QueryAll(ctx, q, each)
}

// likesQuery reads every like's key: a scan of the likes' key range.
var likesQuery = storage.Query{Scan: true, RowKeyFrom: "l|", RowKeyTo: storage.PrefixEnd("l|"), Select: []string{"RowKey"}}

// likedBy are the (topic, post number) of memberKey's likes.
func (s *Service) likedBy(ctx context.Context, memberKey string) ([][2]string, error) {
	var out [][2]string
	err := s.marks.QueryAll(ctx, s.posts, memberKey, likesQuery, func(e storage.Entity) error {
		if strings.HasSuffix(e.RowKey, "|"+memberKey) {
			out = append(out, [2]string{e.PartitionKey, e.RowKey})
		}
		return nil
	})
	return out, err
}

type exportedPost struct {
	Topic   string     `json:"topic_id"`
	Number  int        `json:"number"`
	Text    string     `json:"text"`
	Written time.Time  `json:"written"`
	Edited  *time.Time `json:"edited,omitempty"`
	Deleted bool       `json:"deleted,omitempty"`
}

type exportedTopic struct {
	ID      string    `json:"id"`
	Section string    `json:"section"`
	Title   string    `json:"title"`
	Opened  time.Time `json:"opened"`
}

// ExportMember writes m's topics, posts, likes, poll votes, watches,
// bookmarks and mutes into forum/.
func (s *Service) ExportMember(ctx context.Context, m memberdata.Member, to memberdata.Archive) error {
	topics, posts := []exportedTopic{}, []exportedPost{}
	err := s.marks.QueryAll(ctx, s.posts, m.Key, byAuthor(m.Key), func(e storage.Entity) error {
		if e.RowKey == headKey {
			var t TopicRow
			if err := storage.Unmarshal(e, &t); err != nil {
				return err
			}
			if !t.Deleted {
				topics = append(topics, exportedTopic{ID: t.PartitionKey, Section: t.Section, Title: t.Title, Opened: t.CreatedAt})
			}
			return nil
		}
		var p PostRow
		if err := storage.Unmarshal(e, &p); err != nil {
			return err
		}
		posts = append(posts, exportedPost{Topic: p.PartitionKey, Number: p.Num, Text: p.Body, Written: p.CreatedAt, Edited: p.EditedAt, Deleted: p.DeletedAt != nil})
		return nil
	})
	if err != nil {
		return err
	}
	likes, err := s.likedBy(ctx, m.Key)
	if err != nil {
		return err
	}
	liked := []string{}
	for _, l := range likes {
		liked = append(liked, l[0]+"#"+strings.TrimLeft(strings.Split(l[1], "|")[1], "0"))
	}
	watched := map[string][]string{"topics": {}, "sections": {}}
	for _, q := range []struct {
		t          *storage.Table
		rk, of, pk string
	}{{s.posts, watcherPrefix + m.Key, "topics", ""}, {s.sections, m.Key, "sections", sectionWatchers("")}} {
		err := s.theirs(ctx, q.t, m.Key, rowKeyIs(q.rk), func(e storage.Entity) error {
			watched[q.of] = append(watched[q.of], strings.TrimPrefix(e.PartitionKey, q.pk))
			return nil
		})
		if err != nil {
			return err
		}
	}
	reads, err := storage.All[ReadRow](ctx, s.reads, storage.Query{PartitionKey: m.Key})
	if err != nil {
		return err
	}
	type exportedRead struct {
		Topic     string          `json:"topic_id"`
		ReadUpTo  int             `json:"read_up_to,omitempty"`
		Bookmarks json.RawMessage `json:"bookmarks,omitempty"`
		Muted     json.RawMessage `json:"muted_topics,omitempty"`
		MutedSecs json.RawMessage `json:"muted_sections,omitempty"`
	}
	marks := []exportedRead{}
	raw := func(s string) json.RawMessage {
		if s == "" || !json.Valid([]byte(s)) {
			return nil
		}
		return json.RawMessage(s)
	}
	for _, r := range reads {
		// A bookmark's author is named, not keyed: their key is theirs.
		list := bookmarksOf(r)
		for i := range list {
			list[i].AuthorKey = ""
		}
		bookmarks, err := storage.ListText(list)
		if err != nil {
			return err
		}
		marks = append(marks, exportedRead{Topic: r.RowKey, ReadUpTo: r.ReadNum, Bookmarks: raw(bookmarks), Muted: raw(r.Muted), MutedSecs: raw(r.MutedSections)})
	}
	votes, err := s.exportVotes(ctx, m.Key)
	if err != nil {
		return err
	}
	return memberdata.Files(to, "forum", map[string]any{"topics": topics, "posts": posts, "likes": liked, "poll_votes": votes, "watching": watched, "reading": marks})
}

// ForgetMember forgets m in the forum (see the top of this file).
func (s *Service) ForgetMember(ctx context.Context, m memberdata.Member) error {
	if m.Key == "" || memberdata.IsForgotten(m.Key) {
		return nil
	}
	for _, step := range []func(context.Context, memberdata.Member) error{
		s.forgetLikes, s.forgetVotes, s.forgetWatches, s.forgetModeration, s.forgetAuthorship,
	} {
		if err := step(ctx, m); err != nil {
			return err
		}
	}
	if err := storage.DeletePartition(ctx, s.reads, m.Key); err != nil {
		return err
	}
	for _, kind := range []string{"pace|topic|", "pace|reply|", "edit|", "new|topic|", "new|reply|"} {
		if err := storage.DeletePartition(ctx, s.quota, kind+m.Key); err != nil {
			return err
		}
	}
	err := s.quota.QueryAll(ctx, rowKeyIs(m.Key), func(e storage.Entity) error {
		return storage.Forget(ctx, s.quota, e.PartitionKey, e.RowKey)
	})
	if err != nil {
		return err
	}
	return s.marks.Forget(ctx, m.Key)
}

// forgetLikes takes back m's likes: each like's row and its post's count
// in one transaction, as an unlike; a like of a post gone goes alone.
func (s *Service) forgetLikes(ctx context.Context, m memberdata.Member) error {
	likes, err := s.likedBy(ctx, m.Key)
	if err != nil {
		return err
	}
	for _, l := range likes {
		topicID, rk := l[0], l[1]
		num, _ := strconv.Atoi(strings.Split(rk, "|")[1])
		err := storage.Optimistic(ctx, writeAttempts, func(ctx context.Context) error {
			p, err := s.post(ctx, topicID, num)
			if errors.Is(err, ErrNoPost) || errors.Is(err, storage.ErrNotFound) {
				return storage.Forget(ctx, s.posts, topicID, rk)
			}
			if err != nil {
				return err
			}
			p.Likes = max(p.Likes-1, 0)
			var tx storage.Tx
			err = tx.Delete(topicID, rk, storage.AnyETag).Replace(p, p.ETag).Commit(ctx, s.posts)
			if errors.Is(err, storage.ErrNotFound) {
				return nil // taken back meanwhile
			}
			return err
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// forgetWatches deletes m's watcher rows of topics and of sections.
func (s *Service) forgetWatches(ctx context.Context, m memberdata.Member) error {
	for _, q := range []struct {
		t  *storage.Table
		rk string
	}{{s.posts, watcherPrefix + m.Key}, {s.sections, m.Key}} {
		err := s.theirs(ctx, q.t, m.Key, rowKeyIs(q.rk), func(e storage.Entity) error {
			return storage.Forget(ctx, q.t, e.PartitionKey, e.RowKey)
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// forgetModeration takes m off the moderators of every section.
func (s *Service) forgetModeration(ctx context.Context, m memberdata.Member) error {
	sections, err := s.Sections(ctx, true)
	if err != nil {
		return err
	}
	for _, sec := range sections {
		if !slices.Contains(sec.ModeratorKeys(), m.Key) {
			continue
		}
		_, err := storage.Change(ctx, s.sections, sectionsPart, sec.RowKey, storage.ErrNoChange, func(r *SectionRow) error {
			keys := slices.DeleteFunc(r.ModeratorKeys(), func(k string) bool { return k == m.Key })
			var emails []string
			for _, e := range strings.Split(r.ModeratorEmails, ",") {
				if e = strings.TrimSpace(e); e != "" && !strings.EqualFold(e, m.Email) {
					emails = append(emails, e)
				}
			}
			r.Moderators, r.ModeratorEmails = strings.Join(keys, ","), strings.Join(emails, ", ")
			return nil
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// forgetBookmarked takes a forgotten member's name out of others'
// bookmarks of their posts (theirs, rows of Posts): a bookmark keeps its
// post's author's name for the Bookmarks page, which then reads
// "Deleted member". One scan of the read markers that hold bookmarks.
func (s *Service) forgetBookmarked(ctx context.Context, theirs []storage.Entity) error {
	nums := map[string][]int{} // topic: post numbers
	for _, e := range theirs {
		if e.RowKey == headKey {
			continue
		}
		var p PostRow
		if err := storage.Unmarshal(e, &p); err != nil {
			return err
		}
		nums[e.PartitionKey] = append(nums[e.PartitionKey], p.Num)
	}
	if len(nums) == 0 {
		return nil
	}
	q := storage.Query{Scan: true, Filters: []storage.Filter{{Name: "bookmarked", Op: storage.Eq, Value: true}}, Select: []string{"RowKey"}}
	return s.reads.QueryAll(ctx, q, func(e storage.Entity) error {
		in := nums[e.RowKey]
		if len(in) == 0 {
			return nil
		}
		_, err := storage.Change(ctx, s.reads, e.PartitionKey, e.RowKey, storage.ErrNoChange, func(r *ReadRow) error {
			list, changed := bookmarksOf(*r), false
			for i, b := range list {
				if slices.Contains(in, b.Num) && (b.Author != "" || b.AuthorKey != "") {
					list[i].Author, list[i].AuthorKey, changed = "", "", true
				}
			}
			if !changed {
				return storage.ErrNoChange
			}
			var err error
			r.Bookmarks, err = storage.ListText(list)
			return err
		})
		return err
	})
}

// forgetAuthorship rewrites m's heads and posts to Forgotten (others'
// bookmarks of them first, forgetBookmarked), then, for
// each topic they took part in, the head's last poster when it was
// theirs, and last their participant row.
func (s *Service) forgetAuthorship(ctx context.Context, m memberdata.Member) error {
	var theirs []storage.Entity
	err := s.marks.QueryAll(ctx, s.posts, m.Key, byAuthor(m.Key), func(e storage.Entity) error {
		theirs = append(theirs, e)
		return nil
	})
	if err != nil {
		return err
	}
	// Others' bookmarks first, while the posts still say they are m's: a
	// run cut short after them finds the posts again.
	if err := s.forgetBookmarked(ctx, theirs); err != nil {
		return err
	}
	for _, e := range theirs {
		if e.RowKey == headKey {
			err = s.forgetHead(ctx, e.PartitionKey, func(t *TopicRow) bool {
				if t.AuthorKey != m.Key {
					return false
				}
				t.AuthorKey, t.AuthorName = memberdata.Forgotten, ""
				return true
			})
		} else {
			_, err = storage.Change(ctx, s.posts, e.PartitionKey, e.RowKey, storage.ErrNoChange, forgetPost(m.Key))
		}
		if err != nil {
			return err
		}
	}
	return s.marks.QueryAll(ctx, s.posts, m.Key, rowKeyIs(participantPrefix+m.Key), func(e storage.Entity) error {
		var who ParticipantRow
		if err := storage.Unmarshal(e, &who); err != nil {
			return err
		}
		last, err := s.lastPoster(ctx, e.PartitionKey)
		if err != nil {
			return err
		}
		if memberdata.IsForgotten(last) {
			err := s.forgetHead(ctx, e.PartitionKey, func(t *TopicRow) bool {
				if t.LastAuthorName == "" {
					return false
				}
				t.LastAuthorName = ""
				return true
			})
			if err != nil {
				return err
			}
		}
		return storage.Forget(ctx, s.posts, e.PartitionKey, e.RowKey)
	})
}

// forgetPost rewrites a post of memberKey's to Forgotten.
func forgetPost(memberKey string) func(p *PostRow) error {
	return func(p *PostRow) error {
		if p.AuthorKey != memberKey {
			return storage.ErrNoChange
		}
		p.AuthorKey, p.AuthorName = memberdata.Forgotten, ""
		return nil
	}
}

// lastPoster is the author of topicID's newest visible post, "" when
// unknown.
func (s *Service) lastPoster(ctx context.Context, topicID string) (string, error) {
	t, err := storage.Get[TopicRow](ctx, s.posts, topicID, headKey)
	if errors.Is(err, storage.ErrNotFound) {
		return "", nil
	}
	if err != nil {
		return "", err
	}
	n, ok := newest(t.Recent)
	if !ok {
		return "", nil
	}
	p, err := s.post(ctx, topicID, n.Num)
	if errors.Is(err, ErrNoPost) || errors.Is(err, storage.ErrNotFound) {
		return "", nil
	}
	return p.AuthorKey, err
}

// forgetHead changes topicID's head as change says (false: nothing to
// change), with its list and search rows following; a deleted topic's
// head, which has none, is changed alone.
func (s *Service) forgetHead(ctx context.Context, topicID string, change func(t *TopicRow) bool) error {
	before, after, err := s.changeHead(ctx, topicID, func(t *TopicRow) error {
		if !change(t) {
			return storage.ErrNoChange
		}
		return nil
	})
	if err == nil && before.AuthorName != after.AuthorName {
		// The search rows carry the author's name too, which
		// changeHead follows only with the title.
		s.followTitle(ctx, &before, &after)
	}
	if !errors.Is(err, ErrNoTopic) {
		return err
	}
	_, err = storage.Change(ctx, s.posts, topicID, headKey, storage.ErrNoChange, func(t *TopicRow) error {
		if !t.Deleted || !change(t) {
			return storage.ErrNoChange
		}
		return nil
	})
	return err
}
