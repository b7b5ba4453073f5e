package forum_test

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"

	"github.com/harmony/harmony/internal/app/forum"
	"github.com/harmony/harmony/internal/app/inbox"
	"github.com/harmony/harmony/internal/memberdata"
	"github.com/harmony/harmony/internal/memberdata/memberdatatest"
	"github.com/harmony/harmony/internal/storage"
)

// headWritesRefused refuses, while armed, every write of a topic head
// (the second of a forget's steps that touch ForumPosts): a run that
// stops part way.
type headWritesRefused struct {
	storage.Backend
	armed atomic.Bool
}

var errStopped = errors.New("the process stopped")

func (b *headWritesRefused) Update(ctx context.Context, table string, e storage.Entity, mode storage.UpdateMode, ifMatch string) (string, error) {
	if b.armed.Load() && e.RowKey == "topic" {
		return "", errStopped
	}
	return b.Backend.Update(ctx, table, e, mode, ifMatch)
}

// TestDeletingAnAccountInTheForum: ann's archive holds her topic, her
// posts and her like, not bob's posts. Her deletion, cut short, is
// finished by the next run: her topic and posts stay, by "Deleted
// member" with no link (and as the topic's last poster in the list);
// bob's like of her post stays and her like of his is taken from its
// count; her watches, bookmark and moderation go; nothing in the
// forum's tables names her; the rebuild finds nothing to fix; and one
// more run changes nothing.
func TestDeletingAnAccountInTheForum(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	crash := &headWritesRefused{}
	a := newAppOn(t, func(b storage.Backend) storage.Backend { crash.Backend = b; return crash })
	_, annC, bobC := a.talkSection(t, "ann@example.com")
	ann := forum.Person{MemberKey: a.Who(annC), Name: "Ann"}
	bob := forum.Person{MemberKey: a.Who(bobC), Name: "Bob"}
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	hers, err := a.svc.CreateTopic(ctx, ann, "talk", "Hiking in May", "Who is coming?")
	must(err)
	_, err = a.svc.Reply(ctx, bob, hers.PartitionKey, "Me!")
	must(err)
	a.Clock.Advance(time.Minute)
	_, err = a.svc.Reply(ctx, ann, hers.PartitionKey, "Great, see you there.")
	must(err)
	his, err := a.svc.CreateTopic(ctx, bob, "talk", "Boots advice", "Which boots?")
	must(err)
	must(a.svc.Like(ctx, ann, his.PartitionKey, 1, true))
	must(a.svc.Like(ctx, bob, hers.PartitionKey, 1, true))
	must(a.svc.Bookmark(ctx, ann, his.PartitionKey, 1, true))
	must(a.svc.Bookmark(ctx, bob, hers.PartitionKey, 3, true)) // her reply
	must(a.svc.SetLevel(ctx, ann.MemberKey, his.PartitionKey, forum.Watching))
	must(a.svc.SetSectionLevel(ctx, ann.MemberKey, "talk", forum.Watching))
	m := memberdatatest.Member(ann.MemberKey, "ann@example.com")
	m.Name = ann.Name

	arch := &memberdatatest.Archive{}
	must(a.svc.ExportMember(ctx, m, arch))
	text := arch.Text()
	for _, want := range []string{"forum/topics.json", "Hiking in May", "Great, see you there.", his.PartitionKey + "#1", "forum/watching.json"} {
		if !strings.Contains(text, want) {
			t.Errorf("the archive lacks %q:\n%s", want, text)
		}
	}
	if strings.Contains(text, "Me!") || strings.Contains(text, bob.MemberKey) {
		t.Errorf("the archive holds bob's posts:\n%s", text)
	}

	crash.armed.Store(true)
	if err := a.svc.ForgetMember(ctx, m); !errors.Is(err, errStopped) {
		t.Fatalf("a forget cut short: %v", err)
	}
	crash.armed.Store(false)
	must(a.svc.ForgetMember(ctx, m))
	tables := a.svc.Tables()
	if left := memberdatatest.Traces(t, a.Store, m, tables...); len(left) > 0 {
		t.Fatalf("rows still naming ann: %v", left)
	}

	// Bob's bookmark of her reply no longer keeps her name.
	if left := memberdatatest.NameTraces(t, a.Store, m.Name, tables...); len(left) > 0 {
		t.Errorf("rows still keeping ann's name: %v", left)
	}
	if got := bobC.Get("/forum/bookmarks").Doc(t).Find("main .row-meta").Text(); !strings.Contains(got, "Deleted member") {
		t.Errorf("Bob's bookmark of her reply: %q", got)
	}

	page := bobC.Get("/forum/t/" + hers.PartitionKey).Doc(t)
	var authors []string
	page.Find(".forum-author").Each(func(_ int, s *goquery.Selection) { authors = append(authors, strings.TrimSpace(s.Text())) })
	if strings.Join(authors, ",") != "Deleted member,Bob,Deleted member" || page.Find("a.forum-author").Length() != 1 {
		t.Errorf("the topic's authors: %q, %d links", authors, page.Find("a.forum-author").Length())
	}
	list := bobC.Get("/forum/talk").Doc(t).Find("main").Text()
	if !strings.Contains(list, "Hiking in May Deleted member · last post Fri 17 May 09:31 by Deleted member") {
		t.Errorf("the section's list does not name the deleted member:\n%s", list)
	}
	for topic, want := range map[string]int{hers.PartitionKey: 1, his.PartitionKey: 0} {
		_, p, err := a.svc.Post(ctx, topic, 1)
		if err != nil || p.Likes != want {
			t.Errorf("likes of %s#1: %d, want %d (%v)", topic, p.Likes, want, err)
		}
	}
	sec, err := a.svc.Section(ctx, "talk")
	if err != nil || sec.Moderators != "" || sec.ModeratorEmails != "" {
		t.Errorf("the section's moderators: %q %q (%v)", sec.Moderators, sec.ModeratorEmails, err)
	}

	// Replies to her topic and likes of her posts tell nobody.
	_, err = a.svc.Reply(ctx, bob, hers.PartitionKey, "Anyone else?")
	must(err)
	must(a.svc.Like(ctx, bob, hers.PartitionKey, 3, true))
	if told := memberdatatest.Traces(t, a.Store, memberdata.Member{Key: memberdata.Forgotten}, inbox.Table); len(told) > 0 {
		t.Errorf("notices to the deleted member: %v", told)
	}

	rep, err := a.svc.Rebuild(ctx)
	if err != nil || rep.String() != "0 topics recounted; activity index: 2 canonical rows read; 0 derived rows written, 0 removed; title search: 2 canonical rows read; 0 derived rows written, 0 removed; 0 sections recounted" {
		t.Errorf("the rebuild after the deletion: %s, %v", rep, err)
	}
	before := memberdatatest.Snapshot(t, a.Store, tables...)
	must(a.svc.ForgetMember(ctx, m))
	if after := memberdatatest.Snapshot(t, a.Store, tables...); after != before {
		t.Errorf("a second forget wrote:\n%s\n→\n%s", before, after)
	}
}
