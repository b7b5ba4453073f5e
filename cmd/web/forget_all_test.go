package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"image"
	"image/color"
	"image/jpeg"
	"net/http"
	"net/url"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"

	"github.com/harmony/harmony/internal/jobs"
	"github.com/harmony/harmony/internal/memberdata"
	"github.com/harmony/harmony/internal/memberdata/memberdatatest"
	"github.com/harmony/harmony/internal/platform"
	"github.com/harmony/harmony/internal/storage"
	"github.com/harmony/harmony/internal/tasks"
	"github.com/harmony/harmony/internal/web/webtest"
)

// TestDeletingAnAccountLeavesNoTrace builds the whole app as production
// does, seeds the demo, and deletes the account of the demo member who
// has the most content through its pages. Once the tasks have run, no
// row of any table and no blob names the member's memberKey, userKey or
// email, and every module's rebuild finds nothing to change: each
// module's forget kept its indexes in step with its rows.
func TestDeletingAnAccountLeavesNoTrace(t *testing.T) {
	t.Parallel()
	a, store := newTestAppOnStore(t, map[string]string{"ADMIN_EMAILS": platform.DemoSignIn})
	ctx := context.Background()
	if _, err := a.Built.SeedDemo(ctx); err != nil {
		t.Fatal(err)
	}
	runTasks(t, a)

	// The member with the most rows naming them.
	var m memberdata.Member
	most := -1
	for _, p := range platform.DemoPeople() {
		key, err := a.Built.Core.Auth.MemberByEmail(ctx, p.Email)
		if err != nil {
			t.Fatal(err)
		}
		who := memberdatatest.Member(key, p.Email)
		if n := len(memberdatatest.Traces(t, store, who, a.Tables...)); n > most {
			m, most = who, n
		}
	}
	profile, err := a.Built.Core.Accounts.Profile(ctx, m.Key)
	if err != nil || profile.DisplayName == "" {
		t.Fatalf("the member's profile: %+v %v", profile, err)
	}
	c := webtest.NewClient(t, a.Handler())
	signIn(t, c, m.Email)
	// What the demo does not give them: a back-in-stock alert and a
	// profile photo.
	if !postFirstForm(t, c, "/store", "/alert") {
		t.Fatal("no store item offers an alert")
	}
	if res := c.PostFile("/account/photo", c.WithCSRF("/account", nil), "photo", "me.jpg", testJPEG(t)); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("photo: %d", res.StatusCode)
	}
	before := tablesHolding(memberdatatest.Traces(t, store, m, a.Tables...))
	t.Logf("deleting %s, named in %d rows of %v", m.Email, most, before)
	for _, want := range []string{"Likes", "EventAttendees", "Messages", "ForumPosts", "PromptSaves", "BlogComments", "StoreAlerts", "GroupListItems", "Notifications", "UserImages", "UserProfiles"} {
		if !slices.Contains(before, want) {
			t.Errorf("the member has no row in %s to forget", want)
		}
	}
	if blobs, err := store.Container("profile-images").List(ctx, m.Key+"/"); err != nil || len(blobs) == 0 {
		t.Errorf("the member's profile photo: %d blobs, %v", len(blobs), err)
	}
	if res := c.PostForm("/account/data/delete", c.WithCSRF("/account/data/delete", url.Values{"confirm": {m.Email}})); res.StatusCode != http.StatusSeeOther || res.Header.Get("Location") != "/account/deleted" {
		t.Fatalf("delete: %d %s", res.StatusCode, res.Header.Get("Location"))
	}
	runTasks(t, a)

	if left := memberdatatest.Traces(t, store, m, a.Tables...); len(left) > 0 {
		t.Errorf("%d rows still name the member:\n%s", len(left), strings.Join(left, "\n"))
	}
	if left := memberdatatest.NameTraces(t, store, profile.DisplayName, a.Tables...); len(left) > 0 {
		t.Errorf("%d rows still keep the member's name %q:\n%s", len(left), profile.DisplayName, strings.Join(left, "\n"))
	}
	for _, name := range a.Built.Containers {
		blobs, err := store.Container(name).List(ctx, "")
		if err != nil {
			t.Fatal(err)
		}
		for _, b := range blobs {
			if strings.Contains(b.Name, m.Key) || strings.Contains(b.Name, storage.EscapeKey(m.Key)) || strings.Contains(b.Name, m.UserKey) {
				t.Errorf("blob %s/%s names the member", name, b.Name)
			}
		}
	}
	// The same address signs up again to a new, empty account.
	again := webtest.NewClient(t, a.Handler())
	signIn(t, again, m.Email)
	if key, err := a.Built.Core.Auth.MemberByEmail(ctx, m.Email); err != nil || key == m.Key {
		t.Errorf("signing up again gave %q (%v), the deleted account's key is %q", key, err, m.Key)
	}

	// Every rebuild finds its derived rows as the forgets left them.
	rows := dumpTables(t, store, a.Tables)
	for _, r := range a.Built.Rebuilders {
		rep, err := r.Rebuild(ctx)
		if err != nil {
			t.Fatalf("rebuild %s: %v", r.RebuildSubject(), err)
		}
		t.Logf("rebuild %s: %s", r.RebuildSubject(), rep)
	}
	if after := dumpTables(t, store, a.Tables); after != rows {
		t.Errorf("the rebuilds changed rows after the forget:\n%s", lineDiff(rows, after))
	}
}

// runTasks runs the queue until no task is due or running: the app's
// own runner drains it too, so a task it holds is waited for.
func runTasks(t *testing.T, a *app) {
	t.Helper()
	ctx := context.Background()
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if _, err := a.Built.Core.Tasks.RunDue(ctx); err != nil {
			t.Fatal(err)
		}
		if dead, err := a.Built.Core.Tasks.Dead(ctx, 10); err != nil || len(dead) > 0 {
			t.Fatalf("tasks failed for good: %v %+v", err, dead)
		}
		waiting := 0
		err := a.Built.Core.Store.Table(tasks.Table).QueryAll(ctx, storage.Query{PartitionKey: "q", RowKeyPrefix: "t|"}, func(e storage.Entity) error {
			if msg, _ := e.Props["lastError"].(string); msg != "" {
				return fmt.Errorf("task %s failed: %s", e.Props["kind"], msg)
			}
			// Due now, or claimed by the runner (its due is the lease's end).
			if holder, _ := e.Props["holder"].(string); holder != "" || e.RowKey < "t|"+storage.ForwardTicks(time.Now()) {
				waiting++
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if waiting == 0 {
			return
		}
	}
	t.Fatal("tasks still waiting after 30 s")
}

// postFirstForm posts, with c, the first form whose action ends in
// suffix on the pages linked from list (a store item's alert): whether
// it found one.
func postFirstForm(t *testing.T, c *webtest.Client, list, suffix string) bool {
	t.Helper()
	var links []string
	c.Get(list).Doc(t).Find(`a[href^="` + list + `/"]`).Each(func(_ int, a *goquery.Selection) {
		if href, _ := a.Attr("href"); !slices.Contains(links, href) {
			links = append(links, href)
		}
	})
	for _, link := range links {
		action, fields := "", url.Values{}
		c.Get(link).Doc(t).Find("form").Each(func(_ int, f *goquery.Selection) {
			if act, _ := f.Attr("action"); action == "" && strings.HasSuffix(act, suffix) {
				action = act
				f.Find(`input[type="hidden"]`).Each(func(_ int, in *goquery.Selection) {
					if name := in.AttrOr("name", ""); name != "_csrf" {
						fields.Set(name, in.AttrOr("value", ""))
					}
				})
			}
		})
		if action == "" {
			continue
		}
		if res := c.PostForm(action, c.WithCSRF(link, fields)); res.StatusCode >= 400 {
			t.Fatalf("%s: %d", action, res.StatusCode)
		}
		return true
	}
	return false
}

// testJPEG is a small photo.
func testJPEG(t *testing.T) []byte {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, 400, 300))
	for x := range 400 {
		for y := range 300 {
			img.Set(x, y, color.RGBA{uint8(x), uint8(y), 120, 255})
		}
	}
	var b bytes.Buffer
	if err := jpeg.Encode(&b, img, nil); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// tablesHolding are the tables of traces ("table PK RK").
func tablesHolding(traces []string) []string {
	var out []string
	for _, tr := range traces {
		name, _, _ := strings.Cut(tr, " ")
		if !slices.Contains(out, name) {
			out = append(out, name)
		}
	}
	return out
}

// dumpTables is every row of tables with its properties (not its ETag or
// time stamp), one a line, sorted.
func dumpTables(t *testing.T, store *storage.Store, tables []string) string {
	t.Helper()
	var lines []string
	for _, name := range tables {
		if name == tasks.Table || name == jobs.LeasesTable {
			continue
		}
		err := store.Table(name).QueryAll(context.Background(), storage.Query{Scan: true}, func(e storage.Entity) error {
			if name == "Groups" {
				// A group's coming plans, a cache every rebuild computes
				// again, stamped with the time.
				delete(e.Props, "upcoming")
			}
			props, err := json.Marshal(e.Props)
			lines = append(lines, fmt.Sprintf("%s %s %s %s", name, e.PartitionKey, e.RowKey, props))
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	sort.Strings(lines)
	return strings.Join(lines, "\n")
}

// lineDiff lists the lines only one of a and b has.
func lineDiff(a, b string) string {
	as, bs := strings.Split(a, "\n"), strings.Split(b, "\n")
	var out []string
	for _, l := range as {
		if !slices.Contains(bs, l) {
			out = append(out, "- "+l)
		}
	}
	for _, l := range bs {
		if !slices.Contains(as, l) {
			out = append(out, "+ "+l)
		}
	}
	return strings.Join(out, "\n")
}
