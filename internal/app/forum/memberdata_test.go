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
	// scans counts the queries that scan ForumPosts.
	scans atomic.Int64
}

func (b *headWritesRefused) Query(ctx context.Context, table string, q storage.Query) (storage.Page, error) {
	if q.Scan && strings.HasSuffix(table, forum.PostsTable) {
		b.scans.Add(1)
	}
	return b.Backend.Query(ctx, table, q)
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
// count; her watches, bookmark and moderation go; what she wrote is
// found through her footprints (no scan of the topics' rows); nothing in the
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
	tents, err := a.svc.CreatePollTopic(ctx, bob, "talk", "Tents", "Which tent?", forum.PollDraft{Question: "Dome or tunnel?", Options: "Dome\nTunnel"})
	must(err)
	must(a.svc.Like(ctx, ann, tents.PartitionKey, 1, true))
	must(a.svc.Vote(ctx, ann, tents, 1))
	must(a.svc.Vote(ctx, bob, tents, 1))
	must(a.svc.Like(ctx, bob, hers.PartitionKey, 1, true))
	must(a.svc.Bookmark(ctx, ann, his.PartitionKey, 1, true))
	must(a.svc.Bookmark(ctx, bob, hers.PartitionKey, 3, true)) // her reply
	must(a.svc.SetLevel(ctx, ann.MemberKey, his.PartitionKey, forum.Watching))
	must(a.svc.SetSectionLevel(ctx, ann.MemberKey, "talk", forum.Watching))
	m := memberdatatest.Member(ann.MemberKey, "ann@example.com")
	m.Name = ann.Name

	// She opened one topic and replied in it, bookmarked and watched
	// another and liked a third: her footprints lead to all three, and
	// her archive and her deletion scan no topic's rows.
	scans := crash.scans.Load()
	arch := &memberdatatest.Archive{}
	must(a.svc.ExportMember(ctx, m, arch))
	text := arch.Text()
	for _, want := range []string{"forum/topics.json", "Hiking in May", "Great, see you there.", tents.PartitionKey + "#1", "forum/watching.json", his.PartitionKey, "forum/poll_votes.json", `"Tunnel"`} {
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
	if n := crash.scans.Load() - scans; n != 0 {
		t.Errorf("her export and deletion scanned the topics' rows %d times", n)
	}
	tables := a.svc.Tables()
	if left := memberdatatest.Traces(t, a.Store, m, tables...); len(left) > 0 {
		t.Fatalf("rows still naming ann: %v", left)
	}
	// Her vote went with its count; bob's stays.
	if p, _, err := a.svc.Poll(ctx, tents, ""); err != nil || p.Voters != 1 || p.Votes != "0,1" {
		t.Errorf("the poll after her deletion: %d voters, votes %q, %v", p.Voters, p.Votes, err)
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
	for topic, want := range map[string]int{hers.PartitionKey: 1, his.PartitionKey: 0, tents.PartitionKey: 0} {
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
	if err != nil || rep.String() != "0 topics recounted; activity index: 3 canonical rows read; 0 derived rows written, 0 removed; title search: 3 canonical rows read; 0 derived rows written, 0 removed; 0 sections recounted; footprints found: 3; written again: 0" {
		t.Errorf("the rebuild after the deletion: %s, %v", rep, err)
	}
	before := memberdatatest.Snapshot(t, a.Store, tables...)
	must(a.svc.ForgetMember(ctx, m))
	if after := memberdatatest.Snapshot(t, a.Store, tables...); after != before {
		t.Errorf("a second forget wrote:\n%s\n→\n%s", before, after)
	}
}

// TestTheJobRecordsTheFootprintsOfBefore: on a store whose topics came
// before the footprints (none kept, none marked complete), a start
// waits for nothing, and the job forum-footprints records each topic a
// member opened, replied in, liked a post of or watched; a deletion then
// finds all they wrote without a scan.
func TestTheJobRecordsTheFootprintsOfBefore(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	w := &headWritesRefused{}
	a := newAppOn(t, func(b storage.Backend) storage.Backend { w.Backend = b; return w })
	_, annC, bobC := a.talkSection(t, "ann@example.com")
	ann := forum.Person{MemberKey: a.Who(annC), Name: "Ann"}
	bob := forum.Person{MemberKey: a.Who(bobC), Name: "Bob"}
	topics := map[string]string{}
	for _, title := range []string{"Replied", "Liked", "Watched"} {
		tp, err := a.svc.CreateTopic(ctx, bob, "talk", title, "Hello")
		if err != nil {
			t.Fatal(err)
		}
		topics[title] = tp.PartitionKey
	}
	hers, err := a.svc.CreateTopic(ctx, ann, "talk", "Her own", "Mine")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.svc.Reply(ctx, ann, topics["Replied"], "Me too"); err != nil {
		t.Fatal(err)
	}
	if err := a.svc.Like(ctx, ann, topics["Liked"], 1, true); err != nil {
		t.Fatal(err)
	}
	if err := a.svc.SetLevel(ctx, ann.MemberKey, topics["Watched"], forum.Watching); err != nil {
		t.Fatal(err)
	}
	footprints := a.Store.Table(memberdata.FootprintsTable)
	for _, k := range []string{ann.MemberKey, bob.MemberKey, "~complete"} {
		if err := storage.DeletePartition(ctx, footprints, k); err != nil {
			t.Fatal(err)
		}
	}

	fresh := forum.New(a.Store, nil, nil, time.Now)
	if err := fresh.Seed(ctx); err != nil {
		t.Fatal(err)
	}
	if rows, _ := storage.All[memberdata.FootprintRow](ctx, footprints, storage.Query{PartitionKey: ann.MemberKey}); len(rows) != 0 {
		t.Errorf("a start read the topics: %+v", rows)
	}
	for _, j := range fresh.Jobs() {
		if j.Name == "forum-footprints" {
			if err := j.Run(ctx); err != nil {
				t.Fatal(err)
			}
		}
	}
	rows, err := storage.All[memberdata.FootprintRow](ctx, footprints, storage.Query{PartitionKey: ann.MemberKey})
	got := map[string]bool{}
	for _, r := range rows {
		got[strings.TrimPrefix(r.RowKey, "forum|")] = true
	}
	if err != nil || len(rows) != 4 || !got[hers.PartitionKey] || !got[topics["Replied"]] || !got[topics["Liked"]] || !got[topics["Watched"]] {
		t.Errorf("ann's footprints after a start: %+v, %v", rows, err)
	}
	if n, _ := storage.All[memberdata.FootprintRow](ctx, footprints, storage.Query{PartitionKey: bob.MemberKey}); len(n) != 3 {
		t.Errorf("bob's footprints after a start: %d, want his 3 topics", len(n))
	}
	scans := w.scans.Load()
	m := memberdatatest.Member(ann.MemberKey, "ann@example.com")
	if err := fresh.ForgetMember(ctx, m); err != nil {
		t.Fatal(err)
	}
	if n := w.scans.Load() - scans; n != 0 {
		t.Errorf("the deletion scanned the topics' rows %d times", n)
	}
	if left := memberdatatest.Traces(t, a.Store, m, a.svc.Tables()...); len(left) > 0 {
		t.Fatalf("rows still naming ann: %v", left)
	}
}

// TestABookmarkReminderSaysWhoseNameItQuotes: a reminder of a bookmark
// quotes its post's author, and says whose name that is, so their
// deletion takes it out of the reader's notice even when they renamed
// themselves since.
func TestABookmarkReminderSaysWhoseNameItQuotes(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	a := newApp(t)
	_, annC, bobC := a.talkSection(t, "")
	ann := forum.Person{MemberKey: a.Who(annC), Name: "Ann"}
	bob := forum.Person{MemberKey: a.Who(bobC), Name: "Bob Brown"}
	topic, err := a.svc.CreateTopic(ctx, bob, "talk", "Night trains", "Anyone tried the sleeper?")
	if err == nil {
		err = a.svc.Bookmark(ctx, ann, topic.PartitionKey, 1, true)
	}
	if err == nil {
		err = a.svc.Remind(ctx, ann.MemberKey, topic.PartitionKey, 1, a.Clock.Now().Add(time.Hour))
	}
	if err != nil {
		t.Fatal(err)
	}
	a.Clock.Advance(time.Hour + time.Minute)
	if items := a.Inbox(annC); !strings.Contains(items.Text(), "Reminder: your bookmark in “Night trains”") {
		t.Fatalf("ann's inbox: %q", items.Text())
	}
	tables := a.inbox.Tables()
	if quoted := memberdatatest.NameTraces(t, a.Store, "Bob Brown", tables...); len(quoted) == 0 {
		t.Fatal("the reminder does not quote its author")
	}
	m := memberdatatest.Member(bob.MemberKey, "bob@example.com")
	m.Name = "Robert" // renamed since
	if err := a.inbox.ForgetMember(ctx, m); err != nil {
		t.Fatal(err)
	}
	if left := memberdatatest.NameTraces(t, a.Store, "Bob Brown", tables...); len(left) != 0 {
		t.Errorf("ann's reminder still quotes Bob's name: %v", left)
	}
}
