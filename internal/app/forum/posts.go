package forum

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/harmony/harmony/internal/app/inbox"
	"github.com/harmony/harmony/internal/richtext"
	"github.com/harmony/harmony/internal/storage"
)

// Posts: reading a topic's window, editing with history, deleting to a
// tombstone, likes, hiding, and the mentions a post makes.

// postsPerPage is how many posts a topic page shows.
const postsPerPage = 20

// editWindow: none. Authors may edit their posts at any time; every
// earlier version is kept and shown.

// Posts reads posts from..to of a topic (one query).
func (s *Service) Posts(ctx context.Context, topicID string, from, to int) ([]PostRow, error) {
	return storage.All[PostRow](ctx, s.posts, storage.Query{PartitionKey: topicID, RowKeyFrom: postKey(from), RowKeyTo: postKey(to + 1)})
}

// LikedBy are the posts from..to that memberKey liked (one query of the
// window's likes).
func (s *Service) LikedBy(ctx context.Context, topicID, memberKey string, from, to int) (map[int]bool, error) {
	out := map[int]bool{}
	if memberKey == "" {
		return out, nil
	}
	var rows []storage.Entity
	err := s.posts.QueryAll(ctx, storage.Query{PartitionKey: topicID, RowKeyFrom: likeKey(from, ""), RowKeyTo: likeKey(to+1, ""), Select: []string{"RowKey"}}, func(e storage.Entity) error {
		rows = append(rows, e)
		return nil
	})
	if err != nil {
		return nil, err
	}
	for _, e := range rows {
		var num int
		var who string
		if _, err := fmt.Sscanf(e.RowKey, "l|%08d|", &num); err == nil {
			who = e.RowKey[len(likeKey(num, "")):]
		}
		if who == memberKey {
			out[num] = true
		}
	}
	return out, nil
}

// post reads one post.
func (s *Service) post(ctx context.Context, topicID string, num int) (PostRow, error) {
	if num < 1 {
		return PostRow{}, ErrNoPost
	}
	p, err := storage.Find[PostRow](ctx, s.posts, topicID, postKey(num), ErrNoPost)
	return p, err
}

// Post reads one post of an open topic, with the topic.
func (s *Service) Post(ctx context.Context, topicID string, num int) (TopicRow, PostRow, error) {
	t, err := s.Head(ctx, topicID)
	if err != nil {
		return TopicRow{}, PostRow{}, err
	}
	p, err := s.post(ctx, topicID, num)
	return t, p, err
}

// mayEdit says whether by may edit p of t: their own post, not deleted,
// and, unless they are staff (asked only then), neither in a locked
// topic nor hidden: what a moderator froze stays as they found it.
func mayEdit(by Person, t TopicRow, p PostRow, staff func() (bool, error)) error {
	switch {
	case p.AuthorKey != by.MemberKey:
		return ErrNotYours
	case p.DeletedAt != nil:
		return ErrNoPost
	case !t.Locked && !p.Hidden:
		return nil
	}
	if ok, err := staff(); err != nil || ok {
		return err
	}
	if t.Locked {
		return ErrLockedEdit
	}
	return ErrHiddenEdit
}

// Edit replaces the body of by's own post (and, for the opening post,
// the topic's title), keeping the earlier version: one transaction of
// the topic's partition.
func (s *Service) Edit(ctx context.Context, by Person, topicID string, num int, title, body string) error {
	errs := FormErrors{}
	body = checkBody(body, errs)
	if num == 1 {
		title = checkTitle(title, errs)
	}
	if len(errs) > 0 {
		return errs
	}
	if err := s.limitNewcomer(ctx, by, "edit", body); err != nil {
		return err
	}
	var before, after TopicRow
	titleChanged, limited := false, false
	err := storage.Optimistic(ctx, writeAttempts, func(ctx context.Context) error {
		t, p, err := s.Post(ctx, topicID, num)
		if err != nil {
			return err
		}
		if err := mayEdit(by, t, p, func() (bool, error) { return s.IsStaff(ctx, by, t.Section) }); err != nil {
			return err
		}
		titleChanged = num == 1 && title != t.Title
		if p.Body == body && !titleChanged {
			return nil
		}
		if p.Revisions >= maxRevisions {
			return ErrTooManyRevisions
		}
		if !limited { // an edit that changes something counts, once
			if err := s.limitEdits(ctx, by); err != nil {
				return err
			}
			limited = true
		}
		now := s.now().UTC()
		rev := RevisionRow{PartitionKey: topicID, RowKey: revisionKey(num, p.Revisions+1), Body: p.Body, At: p.CreatedAt}
		if p.EditedAt != nil {
			rev.At = *p.EditedAt
		}
		p.Body, p.EditedAt, p.Revisions = body, &now, p.Revisions+1
		var tx storage.Tx
		tx.Insert(rev).Replace(p, p.ETag)
		if titleChanged {
			before = t
			t.Title = title
			if err := s.intend(&t); err != nil {
				return err
			}
			tx.Replace(t, t.ETag)
			after = t
		}
		return tx.Commit(ctx, s.posts)
	})
	if err != nil {
		return err
	}
	if titleChanged {
		if cur, err := s.Head(ctx, topicID); err == nil {
			after = cur
		}
		s.followHead(ctx, &before, &after)
		s.followTitle(ctx, &before, &after)
		s.countSection(ctx, after.Section, 0, after)
	}
	return nil
}

// Revisions are a post's earlier versions from revision from up to (not
// including) to, oldest first: one range query. A post's revisions are
// numbered from 1 (PostRow.Revisions is the last).
func (s *Service) Revisions(ctx context.Context, topicID string, num, from, to int) ([]RevisionRow, error) {
	return storage.All[RevisionRow](ctx, s.posts, storage.Query{PartitionKey: topicID, RowKeyFrom: revisionKey(num, from), RowKeyTo: revisionKey(num, to)})
}

// MayDelete says whether by may delete post p of t (Delete's check, for
// a page that asks first): its author, or the section's staff, who
// alone delete a first post with replies. It reports whether by is
// staff there.
func (s *Service) MayDelete(ctx context.Context, by Person, t TopicRow, p PostRow) (staff bool, err error) {
	if staff, err = s.IsStaff(ctx, by, t.Section); err != nil {
		return false, err
	}
	if p.AuthorKey != by.MemberKey && !staff {
		return false, ErrNotYours
	}
	if p.Num == 1 && t.Replies > 0 && !staff {
		return false, ErrHasReplies // others' replies would go with it
	}
	return staff, nil
}

// Delete leaves a tombstone of by's own post (staff may delete any):
// its text goes, and it no longer counts. Deleting the opening post
// deletes the topic (deleteTopic).
func (s *Service) Delete(ctx context.Context, by Person, topicID string, num int) error {
	if num == 1 {
		return s.deleteTopic(ctx, by, topicID)
	}
	t, p, err := s.Post(ctx, topicID, num)
	if err != nil {
		return err
	}
	staff, err := s.MayDelete(ctx, by, t, p)
	if err != nil {
		return err
	}
	was, err := s.setPost(ctx, topicID, num, func(p *PostRow) error {
		if p.DeletedAt != nil {
			return storage.ErrNoChange
		}
		now := s.now().UTC()
		p.DeletedAt, p.Body = &now, ""
		return nil
	})
	if err != nil || was.DeletedAt != nil {
		return err
	}
	if staff && p.AuthorKey != by.MemberKey {
		s.logAction(ctx, by, "forum.delete_post", t, num)
	}
	if was.Hidden {
		return nil // a hidden reply stopped counting when it was hidden
	}
	return s.recount(ctx, topicID, num, false)
}

// deleteTopic tombstones a topic's opening post and marks its head
// deleted in one transaction of the topic's partition, so that no crash
// leaves the topic listed without its opening post. An opening post
// already tombstoned (by a delete before this was one write) gets its
// head marked now.
func (s *Service) deleteTopic(ctx context.Context, by Person, topicID string) error {
	var before, after TopicRow
	var staff bool
	var author string
	err := storage.Optimistic(ctx, writeAttempts, func(ctx context.Context) error {
		t, p, err := s.Post(ctx, topicID, 1)
		if err != nil {
			return err
		}
		if staff, err = s.MayDelete(ctx, by, t, p); err != nil {
			return err
		}
		before, author = t, p.AuthorKey
		var tx storage.Tx
		if p.DeletedAt == nil {
			now := s.now().UTC()
			p.DeletedAt, p.Body = &now, ""
			tx.Replace(p, p.ETag)
		}
		t.Deleted = true
		if err := s.intend(&t); err != nil {
			return err
		}
		after = t
		return tx.Replace(t, t.ETag).Commit(ctx, s.posts)
	})
	if err != nil {
		return err
	}
	if staff && author != by.MemberKey {
		s.logAction(ctx, by, "forum.delete_post", before, 1)
	}
	s.followHead(ctx, &before, &after)
	s.followTitle(ctx, &before, &after)
	s.countSection(ctx, before.Section, -1, after)
	return nil
}

// Hide folds a post for members and stops it counting, or shows it
// again (staff).
func (s *Service) Hide(ctx context.Context, by Person, topicID string, num int, hidden bool) error {
	t, _, err := s.Post(ctx, topicID, num)
	if err != nil {
		return err
	}
	if err := s.requireStaff(ctx, by, t.Section); err != nil {
		return err
	}
	was, err := s.setPost(ctx, topicID, num, func(p *PostRow) error {
		if p.Hidden == hidden || p.DeletedAt != nil {
			return storage.ErrNoChange
		}
		p.Hidden = hidden
		return nil
	})
	if err != nil || was.Hidden == hidden || was.DeletedAt != nil {
		return err
	}
	action := map[bool]string{true: "forum.hide_post", false: "forum.show_post"}[hidden]
	s.logAction(ctx, by, action, t, num)
	if num == 1 {
		return nil // the opening post stays the topic's, folded or not
	}
	return s.recount(ctx, topicID, num, !hidden)
}

// setPost changes one post at its ETag (f returning storage.ErrNoChange
// writes nothing) and returns it as it was just before: what the counts
// follow, whatever another writer did meanwhile.
func (s *Service) setPost(ctx context.Context, topicID string, num int, f func(p *PostRow) error) (was PostRow, err error) {
	_, err = storage.Change(ctx, s.posts, topicID, postKey(num), ErrNoPost, func(p *PostRow) error {
		was = *p
		return f(p)
	})
	return was, err
}

// recount brings a topic's head in step with reply num shown (visible)
// or not: its replies, its Recent and its last activity.
func (s *Service) recount(ctx context.Context, topicID string, num int, visible bool) error {
	var post PostRow
	if visible {
		var err error
		if post, err = s.post(ctx, topicID, num); err != nil {
			return err
		}
	}
	_, _, err := s.changeHead(ctx, topicID, func(t *TopicRow) error {
		if visible {
			t.Recent = withPost(t.Recent, num, post.CreatedAt)
			t.Replies++
		} else {
			t.Recent = withoutPost(t.Recent, num)
			t.Replies = max(t.Replies-1, 0)
			if t.Solved == num {
				t.Solved = 0 // a hidden or deleted reply answers nothing
			}
		}
		if n, ok := newest(t.Recent); ok {
			t.LastActivityAt = n.At
		}
		return nil
	})
	return err
}

// Like marks by's like of someone else's post, or takes it back: the
// like's row and the post's count in one transaction. A like counts what
// others thought of a post, so its author cannot add one. The like is
// judged before the liker's footprint is written, so a refusal writes
// nothing.
func (s *Service) Like(ctx context.Context, by Person, topicID string, num int, like bool) error {
	marked := false
	return storage.Optimistic(ctx, writeAttempts, func(ctx context.Context) error {
		_, p, err := s.Post(ctx, topicID, num)
		if err != nil {
			return err
		}
		if p.DeletedAt != nil || p.Hidden {
			return ErrNoPost
		}
		if like && p.AuthorKey == by.MemberKey {
			return ErrOwnLike
		}
		_, err = storage.Get[LikeRow](ctx, s.posts, topicID, likeKey(num, by.MemberKey))
		liked := err == nil
		if err != nil && !errors.Is(err, storage.ErrNotFound) {
			return err
		}
		if liked == like {
			return nil
		}
		if like && !marked {
			if err := s.marks.Mark(ctx, by.MemberKey, topicID); err != nil {
				return err
			}
			marked = true
		}
		var tx storage.Tx
		if like {
			p.Likes++
			tx.Insert(LikeRow{PartitionKey: topicID, RowKey: likeKey(num, by.MemberKey), At: s.now().UTC()})
		} else {
			p.Likes = max(p.Likes-1, 0)
			tx.Delete(topicID, likeKey(num, by.MemberKey), storage.AnyETag)
		}
		return tx.Replace(p, p.ETag).Commit(ctx, s.posts)
	})
}

// participantPrefix are a topic's authors, for mentions: RK
// "a|{memberKey}", their name.
const participantPrefix = "a|"

// ParticipantRow is someone who posted in a topic.
type ParticipantRow struct {
	PartitionKey string `table:"PartitionKey"`
	RowKey       string `table:"RowKey"`
	ETag         string `table:"ETag"`
	Name         string `table:"name"`
}

// tellAuthor tells a topic's author of a reply by someone else, at most
// once per topic per hour (the notice's key names the hour), unless the
// reply mentions them (that notice says more) or they muted the topic or
// its section; it reports whether it told them.
func (s *Service) tellAuthor(ctx context.Context, by Person, t TopicRow, p PostRow, mentioned []richtext.Named) bool {
	if t.AuthorKey == by.MemberKey || slices.ContainsFunc(mentioned, func(n richtext.Named) bool { return n.Key == t.AuthorKey }) || s.mutes(ctx, t.AuthorKey, t) {
		return false
	}
	s.tell(ctx, t.AuthorKey, "forum.notify.reply", by, t, p, fmt.Sprintf("forum.reply|%s|%s", t.PartitionKey, p.CreatedAt.UTC().Format("2006010215")))
	return true
}

// tell posts memberKey a notice of kind about post p of topic t by by,
// once per key, unless they blocked by (the inbox checks); a failure is
// logged, the post stands.
func (s *Service) tell(ctx context.Context, memberKey, kind string, by Person, t TopicRow, p PostRow, key string) {
	err := s.notifier.Post(ctx, inbox.Notice{
		To:   []inbox.Recipient{{MemberKey: memberKey}},
		Kind: kind,
		Args: map[string]string{"name": by.Name, "topic": t.Title, "preview": richtext.Plain(p.Body, 140)},
		When: p.CreatedAt,
		Link: postURL(t.PartitionKey, p.Num),
		Key:  key,
		From: by.MemberKey,
		// Replies to one topic gather into one line, unread.
		Gather: gathered(kind, t.PartitionKey),
	})
	if err != nil {
		s.log.WarnContext(ctx, "forum: notice not posted", "kind", kind, "topic", t.PartitionKey, "err", err)
	}
}

// gathered is the inbox.Notice.Gather of a notice of kind about a topic:
// the topic, for the replies (to its author, to its watchers); "" for a
// mention or an answer, each its own line.
func gathered(kind, topicID string) string {
	if kind == "forum.notify.reply" || kind == "forum.notify.watched" {
		return topicID
	}
	return ""
}

// participant records by as a participant of a topic, in the
// transaction that writes their post.
func participant(topicID string, by Person) ParticipantRow {
	return ParticipantRow{PartitionKey: topicID, RowKey: participantPrefix + by.MemberKey, Name: by.Name}
}

// tellMentioned tells the participants p mentions, in their inbox (the
// participants are read only when p has an @), t's author of the reply,
// and its watchers (watch.go), each person once.
func (s *Service) tellMentioned(ctx context.Context, by Person, t TopicRow, p PostRow) {
	ctx = context.WithoutCancel(ctx)
	if s.notifier == nil || p.Num == 1 {
		return
	}
	var mentioned []richtext.Named
	if strings.Contains(p.Body, "@") {
		people, _, err := storage.Take[ParticipantRow](ctx, s.posts, storage.Query{PartitionKey: t.PartitionKey, RowKeyPrefix: participantPrefix}, 1000)
		if err != nil {
			s.log.WarnContext(ctx, "forum: mentions not read", "topic", t.PartitionKey, "err", err)
		}
		named := make([]richtext.Named, len(people))
		for i, r := range people {
			named[i] = richtext.Named{Key: r.RowKey[len(participantPrefix):], Name: r.Name}
		}
		mentioned = richtext.Mentioned(p.Body, by.MemberKey, named)
	}
	// Who was told is not told again as a watcher; who muted the topic's
	// section but watches the topic hears of it as a watcher.
	var told []string
	if s.tellAuthor(ctx, by, t, p, mentioned) {
		told = append(told, t.AuthorKey)
	}
	// Once an hour per topic and person, as chat does: each notice may be
	// mailed, and a run of "@name" replies must not become a run of mail.
	hour := p.CreatedAt.UTC().Format("2006010215")
	for _, n := range mentioned {
		if !s.mutes(ctx, n.Key, t) {
			s.tell(ctx, n.Key, "forum.notify.mention", by, t, p, fmt.Sprintf("forum.mention|%s|%s|%s", t.PartitionKey, n.Key, hour))
			told = append(told, n.Key)
		}
	}
	s.tellWatchers(ctx, by, t, p, told)
}
