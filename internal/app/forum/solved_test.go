package forum_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/harmony/harmony/internal/web/webtest"
)

// TestSolutions: a topic's author marks a reply as the answer from its
// menu; the page then links it under the question, the reply wears the
// mark, the section's list says "Solved", and the reply's author hears
// of it. Marking another moves the mark; taking it away clears it. Only
// the author or staff may mark; the opening post and a hidden reply
// cannot be the answer; each refusal writes nothing.
func TestSolutions(t *testing.T) {
	t.Parallel()
	a := newApp(t)
	boss, ann, bob := a.talkSection(t, "")
	cat := a.Client()
	a.SignIn(cat, "cat@example.com")
	topic := post(ann, "/forum/topics", url.Values{"section": {"talk"}, "title": {"Where to park?"}, "body": {"Near Riverside Hall?"}}).Header.Get("Location")
	post(bob, topic+"/replies", url.Values{"body": {"Behind the library, free after six."}})
	post(cat, topic+"/replies", url.Values{"body": {"Or the station."}})
	solve := func(c *webtest.Client, num, on string) *webtest.Response {
		return post(c, topic+"/posts/"+num+"/solve", url.Values{"solved": {on}})
	}
	if ann.Get(topic).Doc(t).Find(`[data-num="2"] `+testID("post-solve")).Length() != 1 {
		t.Fatal("the author is not offered to mark a reply")
	}
	if bob.Get(topic).Doc(t).Find(testID("post-solve")).Length() != 0 {
		t.Error("someone else is offered to mark a reply")
	}

	if res := solve(ann, "2", "true"); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("solve: %d", res.StatusCode)
	}
	d := cat.Get(topic).Doc(t)
	if box := d.Find(testID("topic-solution")); !strings.Contains(box.Text(), "Behind the library") || box.Find(testID("topic-solution-link")).AttrOr("href", "") != topic+"?post=2#p2" {
		t.Errorf("the answer under the question: %q", box.Text())
	}
	if d.Find(`[data-num="2"] `+testID("post-solution")).Length() != 1 || d.Find(testID("post-solution")).Length() != 1 {
		t.Error("the reply does not wear the mark, or another does")
	}
	row := cat.Get("/forum/talk").Doc(t).Find(testID("topic-row"))
	if row.Find(testID("topic-solved")).Length() != 1 {
		t.Errorf("the section's list does not say Solved: %q", row.Text())
	}
	if items := a.Inbox(bob); !strings.Contains(items.Text(), "marked your reply in “Where to park?” as the solution") {
		t.Errorf("bob's inbox: %q", items.Text())
	}

	// The staff move the mark to the third post, then the author takes it away.
	if res := solve(boss, "3", "true"); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("staff move the mark: %d", res.StatusCode)
	}
	if got := cat.Get(topic).Doc(t).Find(testID("post-solution")).Closest(testID("post")).AttrOr("data-num", ""); got != "3" {
		t.Errorf("the mark is on post %q", got)
	}
	solve(ann, "3", "false")
	if d := cat.Get(topic).Doc(t); d.Find(testID("topic-solution")).Length() != 0 || d.Find(testID("post-solution")).Length() != 0 {
		t.Error("the mark taken away still shows")
	}
	if cat.Get("/forum/talk").Doc(t).Find(testID("topic-solved")).Length() != 0 {
		t.Error("the list still says Solved")
	}

	for _, tc := range []struct {
		who    *webtest.Client
		num    string
		status int
	}{
		{bob, "2", http.StatusForbidden},  // not the author, not staff
		{ann, "1", http.StatusBadRequest}, // the question itself
		{ann, "9", http.StatusNotFound},   // no such post
	} {
		if res := solve(tc.who, tc.num, "true"); res.StatusCode != tc.status || res.Writes(t) != 0 {
			t.Errorf("solve #%s: %d (%d writes), want %d", tc.num, res.StatusCode, res.Writes(t), tc.status)
		}
	}
	// Hiding the answer takes the mark away; a hidden reply cannot get it.
	solve(ann, "3", "true")
	post(boss, topic+"/posts/3/hide", url.Values{"hidden": {"true"}})
	if cat.Get("/forum/talk").Doc(t).Find(testID("topic-solved")).Length() != 0 {
		t.Error("the list says Solved after its answer was hidden")
	}
	if res := solve(ann, "3", "true"); res.StatusCode != http.StatusBadRequest || res.Writes(t) != 0 {
		t.Errorf("a hidden reply as the answer: %d (%d writes)", res.StatusCode, res.Writes(t))
	}
}
