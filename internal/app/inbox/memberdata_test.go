package inbox_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/harmony/harmony/internal/app/account/accounttest"
	"github.com/harmony/harmony/internal/app/inbox"
	"github.com/harmony/harmony/internal/auth"
	"github.com/harmony/harmony/internal/live"
	"github.com/harmony/harmony/internal/memberdata/memberdatatest"
	"github.com/harmony/harmony/internal/platform"
	"github.com/harmony/harmony/internal/storage/quota"
	"github.com/harmony/harmony/internal/web"
)

// TestAMembersInboxGoesWithThem: Bob's archive holds his notices and no
// one else's; forgetting him deletes his notices, read state and email
// counters, drops Ann's notice that quotes his address and takes his key
// out of the link of another, drops the change feed's rows of his
// inbox, has the notices of his invitations read
// "Deleted member invited you" (in Russian too) without his name (one
// of before by his name, one by his key, whatever name it quotes), and
// leaves the rest of Ann's inbox, another Bob Brown's invitation
// included, and his key goes from a line his comment gathered into
// (counted still among the others). A
// forget cut short by a failed write is finished by the next, and a
// third changes nothing.
func TestAMembersInboxGoesWithThem(t *testing.T) {
	t.Parallel()
	var faults memberdatatest.Faults
	a := &inboxApp{}
	a.App = accounttest.New(t, accounttest.Options{Wrap: faults.Wrap, Modules: []platform.Factory{
		func(c *platform.Core) (web.Module, error) {
			var err error
			a.svc, err = inbox.FromCore(c)
			return a.svc, err
		},
	}})
	annC, bobC := a.Client(), a.Client()
	ann, bob := a.SignIn(annC, "ann@example.com"), a.SignIn(bobC, "bob@example.com")
	bobM := memberdatatest.Member(bob, "bob@example.com")
	bobM.Name = "Bob Brown"

	a.post(t, changed(bob, "Bob's dentist"))
	a.post(t, changed(bob, "Bob's piano"))
	if res := bobC.PostForm("/inbox/read-all", bobC.WithCSRF("/inbox", nil)); res.StatusCode >= 400 {
		t.Fatalf("mark all read: %d", res.StatusCode)
	}
	a.post(t, changed(ann, "Ann's picnic"))
	pointing := changed(ann, "Ann's report")
	pointing.Link = auth.ProfileURL(bob)
	a.post(t, pointing)
	quoting := inbox.Notice{To: []inbox.Recipient{{MemberKey: ann}}, Kind: "groups.notify.invited",
		Args: map[string]string{"name": "Ann", "group": "Smiths", "email": "bob@example.com"}, Link: "/groups/invites"}
	a.post(t, quoting)
	// Bob invited Ann: the notice quotes his name, which goes, and says
	// "Deleted member" in each reader's language instead.
	a.post(t, inbox.Notice{To: []inbox.Recipient{{MemberKey: ann}}, Kind: "groups.notify.invited",
		Args: map[string]string{"name": "Bob Brown", "group": "Chess club"}, Link: "/groups/invites"})
	// A notice from Bob says whose its name is, so his goes even though
	// he wrote it as "Robert" then; another Bob Brown's name stays.
	a.post(t, inbox.Notice{To: []inbox.Recipient{{MemberKey: ann}}, Kind: "groups.notify.invited", From: bob,
		Args: map[string]string{"name": "Robert", "group": "Go club"}, Link: "/groups/invites"})
	a.post(t, inbox.Notice{To: []inbox.Recipient{{MemberKey: ann}}, Kind: "groups.notify.invited", From: "m_other",
		Args: map[string]string{"name": "Bob Brown", "group": "Book club"}, Link: "/groups/invites"})
	// Bob's comment and then Cy's gathered into one line: Bob's key
	// goes from it, and it still counts him among the others.
	for _, from := range [][2]string{{bob, "Bob Brown"}, {"m_cy", "Cy"}} {
		a.post(t, inbox.Notice{To: []inbox.Recipient{{MemberKey: ann}}, Kind: "blog.notify.comment", From: from[0], Gather: "p1",
			Args: map[string]string{"name": from[1], "title": "Tour", "preview": "Nice"}, Link: "/blog/tour"})
	}
	mails := quota.Limit{Table: a.Store.Table(inbox.QuotaTable), Max: 10, Window: 3600e9}
	for _, key := range []string{bob, bobM.UserKey, ann} {
		if err := mails.Take(ctx, key, a.Clock.Now()); err != nil {
			t.Fatal(err)
		}
	}

	var archive memberdatatest.Archive
	if err := a.svc.ExportMember(memberdatatest.English(t), bobM, &archive); err != nil {
		t.Fatal(err)
	}
	text := archive.Text()
	if names := archive.Names(); len(names) != 1 || names[0] != "inbox/notifications.json" {
		t.Errorf("archive files: %v", names)
	}
	if !strings.Contains(text, "Bob's dentist") || !strings.Contains(text, "Bob's piano") || strings.Contains(text, "Ann's") {
		t.Errorf("Bob's archive should hold his notices and no one else's:\n%s", text)
	}

	faults.Finish(t, 1, func() error { return a.svc.ForgetMember(ctx, bobM) })
	// The change feed's rows of Bob's inbox topic go too.
	tables := append(a.svc.Tables(), live.Table)
	if left := memberdatatest.Traces(t, a.Store, bobM, tables...); len(left) != 0 {
		t.Errorf("rows still naming Bob: %v", left)
	}
	// The one row still holding "Bob Brown" is the other Bob Brown's.
	if left := memberdatatest.NameTraces(t, a.Store, bobM.Name, tables...); len(left) != 1 || !strings.Contains(rowText(t, a, left[0]), "Book club") {
		t.Errorf("rows still keeping Bob's name: %v", left)
	}
	items := a.Inbox(annC)
	if got := items.Text(); !strings.Contains(got, "Ann's picnic") || !strings.Contains(got, "Ann's report") || !strings.Contains(got, "Deleted member invited you to Chess club") ||
		!strings.Contains(got, "Deleted member invited you to Go club") || !strings.Contains(got, "Bob Brown invited you to Book club") ||
		!strings.Contains(got, "Cy and 1 other commented on “Tour”") || items.Length() != 6 {
		t.Errorf("Ann's inbox after Bob went: %d items: %s", items.Length(), got)
	}
	if res := annC.Get("/inbox", "Accept-Language", "ru"); !strings.Contains(res.Body, "Удалённый участник приглашает вас в группу «Chess club»") {
		t.Errorf("Ann's inbox in Russian after Bob went: %s", res.Body)
	}
	if n := a.Inbox(bobC).Length(); n != 0 {
		t.Errorf("Bob's inbox keeps %d notices", n)
	}
	before := memberdatatest.Snapshot(t, a.Store, tables...)
	if err := a.svc.ForgetMember(ctx, bobM); err != nil {
		t.Fatal(err)
	}
	if after := memberdatatest.Snapshot(t, a.Store, tables...); after != before {
		t.Errorf("a second forget changed the tables:\n%s\n%s", before, after)
	}
}

// rowText is the row a trace names ("table pk rk column"), as text.
func rowText(t *testing.T, a *inboxApp, trace string) string {
	t.Helper()
	f := strings.Fields(trace)
	e, err := a.Store.Table(f[0]).Get(t.Context(), f[1], f[2])
	if err != nil {
		t.Fatal(err)
	}
	return fmt.Sprint(e.Props)
}
