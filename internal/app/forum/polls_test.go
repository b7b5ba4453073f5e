package forum_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"

	"github.com/harmony/harmony/internal/web/webtest"
)

// TestPolls: a topic opens with a poll (its options one a line, a
// repeat passed over); a member votes from the form and then sees how
// the votes stand, with theirs marked; the same vote again writes
// nothing; they change it and take it back; a visitor sees the results
// and no form. Its author closes it (no more votes, 409), staff open it
// again, and a locked topic's poll takes no votes. Every refusal writes
// nothing: a choice that is none of the options, a vote on a topic
// without a poll, someone else closing it, and a new topic's poll with
// too few or too many options or a question with an invisible control.
// A poll costs its topic's page one query.
func TestPolls(t *testing.T) {
	t.Parallel()
	a := newApp(t)
	boss, ann, bob := a.talkSection(t, "")
	cat, visitor := a.Client(), a.Client()
	a.SignIn(cat, "cat@example.com")
	open := func(c *webtest.Client, question, options string) *webtest.Response {
		return post(c, "/forum/topics", url.Values{"section": {"talk"}, "title": {"Summer outing"}, "body": {"Where shall we go this year?"},
			"pollQuestion": {question}, "pollOptions": {options}})
	}
	res := open(ann, "Where to?", "Lake\r\nHills\n\nlake\n")
	if res.StatusCode != http.StatusSeeOther {
		t.Fatalf("open a topic with a poll: %d", res.StatusCode)
	}
	topic := res.Header.Get("Location")
	poll, results := pollReader(t, topic)
	vote := func(c *webtest.Client, choice string) *webtest.Response {
		return post(c, topic+"/poll", url.Values{"choice": {choice}})
	}

	p := poll(bob)
	if !strings.Contains(p.Find("h2").Text(), "Where to?") || p.Find(`input[name="choice"]`).Length() != 2 || p.Find(testID("poll-results")).Length() != 0 || p.Find(testID("poll-close")).Length() != 0 {
		t.Fatalf("bob's poll before his vote: %q", p.Text())
	}
	if poll(ann).Find(testID("poll-close")).Length() != 1 {
		t.Error("the author is not offered to close the poll")
	}
	// Before voting, a member may look at the results, and back.
	peek := bob.Get(topic).Doc(t).Find(testID("poll-peek")).AttrOr("href", "")
	if p := bob.Get(peek).Doc(t).Find(testID("topic-poll")); p.Find(testID("poll-results")).Length() != 1 || p.Find(testID("poll-form")).Length() != 0 || p.Find(testID("poll-to-vote")).AttrOr("href", "") != topic+"?post=1#poll" {
		t.Errorf("bob's look at the results (%q): %q", peek, p.Text())
	}
	if p := poll(visitor); p.Find(testID("poll-form")).Length() != 0 || results(visitor) != "Lake 0% · 0 votes | Hills 0% · 0 votes" ||
		!strings.Contains(p.Find(testID("poll-signin")).AttrOr("href", ""), url.QueryEscape(topic+"?post=1#poll")) {
		t.Errorf("a visitor's poll: %q, sign in at %q", results(visitor), p.Find(testID("poll-signin")).AttrOr("href", ""))
	}

	if res := vote(bob, "2"); res.StatusCode != http.StatusSeeOther || res.Header.Get("Location") != topic+"?post=1#poll" {
		t.Fatalf("bob votes: %d %s", res.StatusCode, res.Header.Get("Location"))
	}
	if got := results(bob); got != "Lake 0% · 0 votes | Hills Your vote 100% · 1 vote" {
		t.Errorf("bob's results: %q", got)
	}
	if got := poll(bob).Find(testID("poll-voters")).Text(); got != "1 person voted" {
		t.Errorf("voters: %q", got)
	}
	if res := vote(bob, "2"); res.StatusCode != http.StatusSeeOther || res.Writes(t) != 0 {
		t.Errorf("the same vote again: %d, %d writes", res.StatusCode, res.Writes(t))
	}
	vote(bob, "1")
	vote(cat, "1")
	if got := results(cat); got != "Lake Your vote 100% · 2 votes | Hills 0% · 0 votes" {
		t.Errorf("after bob's change and cat's vote: %q", got)
	}
	if res := vote(bob, "none"); res.StatusCode != http.StatusSeeOther {
		t.Errorf("bob takes his vote back: %d", res.StatusCode)
	}
	if p := poll(bob); p.Find(testID("poll-form")).Length() != 1 || !strings.Contains(results(visitor), "Lake 100% · 1 vote") {
		t.Errorf("after bob took his vote back: %q", results(visitor))
	}
	if got := strings.TrimSpace(poll(bob).Find("h2").Text()); got != "Where to?" {
		t.Errorf("the heading: %q", got)
	}
	if got := ann.Get(topic, "Accept-Language", "ru").Doc(t).Find(testID("poll-voters")).Text(); got != "Проголосовал 1 человек" {
		t.Errorf("voters in Russian: %q", got)
	}

	plain := post(ann, "/forum/topics", url.Values{"section": {"talk"}, "title": {"No poll here"}, "body": {"Just words."}}).Header.Get("Location")
	dan := a.Client() // new to the topic: a refusal writes not even his footprint
	a.SignIn(dan, "dan@example.com")
	for _, c := range []struct {
		who    *webtest.Client
		path   string
		form   url.Values
		status int
	}{
		{dan, topic + "/poll", url.Values{"choice": {"3"}}, http.StatusUnprocessableEntity},
		{bob, topic + "/poll", url.Values{"choice": {"0"}}, http.StatusUnprocessableEntity},
		{bob, topic + "/poll", url.Values{"choice": {"3"}}, http.StatusUnprocessableEntity},
		{bob, topic + "/poll", url.Values{"choice": {"x"}}, http.StatusUnprocessableEntity},
		{bob, topic + "/poll", url.Values{"choice": {"1", "2"}}, http.StatusUnprocessableEntity},
		{bob, topic + "/poll", url.Values{}, http.StatusUnprocessableEntity},
		{bob, plain + "/poll", url.Values{"choice": {"1"}}, http.StatusNotFound},
		{bob, topic + "/poll/close", url.Values{}, http.StatusForbidden},
		{ann, plain + "/poll/close", url.Values{}, http.StatusNotFound},
	} {
		if res := post(c.who, c.path, c.form); res.StatusCode != c.status || res.Writes(t) != 0 {
			t.Errorf("%s %v: %d (%d writes), want %d", c.path, c.form, res.StatusCode, res.Writes(t), c.status)
		}
	}
	if visitor.Get(plain).Doc(t).Find(testID("topic-poll")).Length() != 0 {
		t.Error("a topic without a poll shows one")
	}
	cat.Get(plain) // read once, as the poll's topic was
	if withPoll, without := cat.Get(topic).StorageOps(t), cat.Get(plain).StorageOps(t); withPoll["queries"]-without["queries"] != 1 || withPoll["total"]-without["total"] != 1 {
		t.Errorf("a poll costs its page %v, a topic without one %v", withPoll, without)
	}

	// Its author closes it; nobody votes; staff open it again.
	if res := post(ann, topic+"/poll/close", nil); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("close: %d", res.StatusCode)
	}
	if p := poll(bob); p.Find(testID("poll-closed")).Length() != 1 || p.Find(testID("poll-form")).Length() != 0 || p.Find(testID("poll-results")).Length() != 1 {
		t.Errorf("bob's closed poll: %q", p.Text())
	}
	if res := vote(bob, "2"); res.StatusCode != http.StatusConflict || res.Writes(t) != 0 {
		t.Errorf("a vote on a closed poll: %d, %d writes", res.StatusCode, res.Writes(t))
	}
	if res := post(boss, topic+"/poll/close", url.Values{"closed": {"false"}}); res.StatusCode != http.StatusSeeOther || poll(bob).Find(testID("poll-form")).Length() != 1 {
		t.Errorf("staff open it again: %d", res.StatusCode)
	}
	// Moderators hide the opening post: its poll goes out of sight with
	// it and takes no votes.
	post(boss, topic+"/posts/1/hide", url.Values{"hidden": {"true"}})
	if res := vote(bob, "2"); res.StatusCode != http.StatusNotFound || res.Writes(t) != 0 || poll(bob).Length() != 0 {
		t.Errorf("a vote under a hidden opening post: %d, %d writes", res.StatusCode, res.Writes(t))
	}
	post(boss, topic+"/posts/1/hide", url.Values{"hidden": {"false"}})
	id := strings.TrimPrefix(topic, "/forum/t/")
	post(boss, "/forum/t/"+id+"/lock", url.Values{"locked": {"true"}})
	if res := vote(bob, "2"); res.StatusCode != http.StatusConflict || res.Writes(t) != 0 || poll(bob).Find(testID("poll-closed")).Length() != 1 {
		t.Errorf("a vote in a locked topic: %d, %d writes", res.StatusCode, res.Writes(t))
	}
	// While the lock stands nobody closes or opens the poll.
	for _, who := range []*webtest.Client{ann, boss} {
		if res := post(who, topic+"/poll/close", nil); res.StatusCode != http.StatusForbidden || res.Writes(t) != 0 || !strings.Contains(res.Body, "locked") {
			t.Errorf("the poll of a locked topic closed: %d, %d writes", res.StatusCode, res.Writes(t))
		}
	}

	// A new topic's poll refused: the form again, its poll open, nothing
	// written.
	for _, c := range []struct{ question, options, field string }{
		{"", "Only one", "Give from 2 to 10 options"},
		{"Which?", "", "Give from 2 to 10 options"},
		{"", strings.Repeat("option\n", 1) + "a\nb\nc\nd\ne\nf\ng\nh\ni\nj", "Give from 2 to 10 options"},
		{"", "Lake\n" + strings.Repeat("x", 101), "Give from 2 to 10 options"},
		{"Which\u202e one?", "Lake\nHills", "invisible"},
		{"Which?", "Lake\nHi\x00lls", "control"},
	} {
		res := open(ann, c.question, c.options)
		d := res.Doc(t)
		if res.StatusCode != http.StatusUnprocessableEntity || res.Writes(t) != 0 || d.Find(testID("compose-poll")).AttrOr("open", "no") == "no" || !strings.Contains(d.Find(testID("compose-poll")).Text(), c.field) {
			t.Errorf("poll %q %q: %d (%d writes): %q", c.question, c.options, res.StatusCode, res.Writes(t), d.Find(testID("compose-poll")).Text())
		}
	}
}

// TestPollsOfSeveralChoicesThatCloseByThemselves: a poll may let voters
// choose several options, each counted, a vote changed whole; it may
// close by itself a set time after the topic opens, saying when until
// then, and take no votes after. The section's list marks a topic with
// a poll. A close time that is none of the form's, or two options in a
// poll of one choice, is refused and writes nothing.
func TestPollsOfSeveralChoicesThatCloseByThemselves(t *testing.T) {
	t.Parallel()
	a := newApp(t)
	_, ann, bob := a.talkSection(t, "")
	cat := a.Client()
	a.SignIn(cat, "cat@example.com")
	open := func(closes string) *webtest.Response {
		return post(ann, "/forum/topics", url.Values{"section": {"talk"}, "title": {"Which days?"}, "body": {"Tick every day you can come."},
			"pollOptions": {"Sat\nSun\nMon"}, "pollMultiple": {"true"}, "pollCloses": {closes}})
	}
	if res := open("5y"); res.StatusCode != http.StatusUnprocessableEntity || res.Writes(t) != 0 ||
		!strings.Contains(res.Doc(t).Find(testID("compose-poll")).Text(), "Choose when the poll closes") ||
		res.Doc(t).Find(testID("compose-poll-multiple")).AttrOr("checked", "no") == "no" {
		t.Fatalf("a close time of none of the form's: %d, %d writes", res.StatusCode, res.Writes(t))
	}
	res := open("3d")
	if res.StatusCode != http.StatusSeeOther {
		t.Fatalf("open a topic with a poll of several choices: %d", res.StatusCode)
	}
	topic := res.Header.Get("Location")
	poll, results := pollReader(t, topic)
	vote := func(c *webtest.Client, choices ...string) *webtest.Response {
		return post(c, topic+"/poll", url.Values{"choice": choices})
	}

	p := poll(bob)
	if p.Find(`input[type="checkbox"][name="choice"]`).Length() != 3 || p.Find(`input[type="radio"]`).Length() != 0 || !strings.Contains(p.Find("legend").Text(), "Choose one or more") {
		t.Fatalf("bob's poll of several choices: %q", p.Text())
	}
	if got := strings.Join(strings.Fields(p.Find(testID("poll-closes")).Text()), " "); !strings.Contains(got, "Closes") {
		t.Errorf("when it closes: %q", got)
	}
	if list := bob.Get("/forum/talk").Doc(t); list.Find(testID("topic-poll-badge")).Length() != 1 {
		t.Error("the section's list does not mark the topic with a poll")
	}

	if res := vote(bob, "3", "1"); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("bob votes for two days: %d", res.StatusCode)
	}
	if got := results(bob); got != "Sat Your vote 100% · 1 vote | Sun 0% · 0 votes | Mon Your vote 100% · 1 vote" {
		t.Errorf("bob's results: %q", got)
	}
	if res := vote(bob, "1", "3"); res.StatusCode != http.StatusSeeOther || res.Writes(t) != 0 {
		t.Errorf("the same vote again: %d, %d writes", res.StatusCode, res.Writes(t))
	}
	if boxes := poll(bob).Find(testID("poll-form")).Find(`input:checked`); boxes.Length() != 2 {
		t.Errorf("bob's change of vote holds %d ticked boxes, not his two", boxes.Length())
	}
	vote(cat, "1")
	vote(bob, "2")
	if got := results(cat); got != "Sat Your vote 50% · 1 vote | Sun 50% · 1 vote | Mon 0% · 0 votes" {
		t.Errorf("after cat's vote and bob's change: %q", got)
	}
	if got := poll(cat).Find(testID("poll-voters")).Text(); !strings.Contains(got, "2 people voted") {
		t.Errorf("voters: %q", got)
	}

	// Three days on, it is closed: no form, no vote, no time to close.
	a.Clock.Advance(3*24*time.Hour + time.Minute)
	if p := poll(bob); p.Find(testID("poll-closed")).Length() != 1 || p.Find(testID("poll-form")).Length() != 0 || p.Find(testID("poll-closes")).Length() != 0 {
		t.Errorf("the poll after its close time: %q", p.Text())
	}
	if res := vote(cat, "2"); res.StatusCode != http.StatusConflict || res.Writes(t) != 0 {
		t.Errorf("a vote after the close time: %d, %d writes", res.StatusCode, res.Writes(t))
	}
	// Its author opens it again: it takes votes, and closes when she
	// closes it.
	if res := post(ann, topic+"/poll/close", url.Values{"closed": {"false"}}); res.StatusCode != http.StatusSeeOther || res.Writes(t) != 1 {
		t.Fatalf("open it again: %d, %d writes", res.StatusCode, res.Writes(t))
	}
	if p := poll(bob); p.Find(testID("poll-closed")).Length() != 0 || p.Find(testID("poll-closes")).Length() != 0 {
		t.Errorf("the poll opened again: %q", p.Text())
	}
	if res := vote(cat, "2"); res.StatusCode != http.StatusSeeOther {
		t.Errorf("a vote once it is open again: %d", res.StatusCode)
	}
}

// pollReader reads topic's poll as a reader c sees it (poll), and its
// results as one line an option, "Lake Your vote 100% · 1 vote | …"
// (results).
func pollReader(t *testing.T, topic string) (poll func(*webtest.Client) *goquery.Selection, results func(*webtest.Client) string) {
	poll = func(c *webtest.Client) *goquery.Selection { return c.Get(topic).Doc(t).Find(testID("topic-poll")) }
	results = func(c *webtest.Client) string {
		var out []string
		poll(c).Find(testID("poll-result")).Each(func(_ int, s *goquery.Selection) {
			out = append(out, strings.Join(strings.Fields(s.Text()), " "))
		})
		return strings.Join(out, " | ")
	}
	return poll, results
}

// TestPollResultsShowWhenItsAuthorChose: a poll may show its results
// only to those who voted, or only once it is closed (Discourse's
// "results"); until then a reader sees why, no "Show results" is
// offered and asking for them anyway shows none, while its author and
// staff see them always. A choice not on the form is refused, nothing
// written.
func TestPollResultsShowWhenItsAuthorChose(t *testing.T) {
	t.Parallel()
	a := newApp(t)
	boss, ann, bob := a.talkSection(t, "")
	visitor := a.Client()
	open := func(show string) *webtest.Response {
		return post(ann, "/forum/topics", url.Values{"section": {"talk"}, "title": {"Secret ballot"}, "body": {"Vote first."},
			"pollOptions": {"Yes\nNo"}, "pollShow": {show}})
	}
	if res := open("never"); res.StatusCode != http.StatusUnprocessableEntity || res.Writes(t) != 0 || !strings.Contains(res.Doc(t).Find(testID("compose-poll")).Text(), "when the results show") {
		t.Fatalf("a show not on the form: %d, %d writes", res.StatusCode, res.Writes(t))
	}
	shown := func(p *goquery.Selection) bool { return p.Find(testID("poll-results")).Length() == 1 }

	closedTopic := open("closed").Header.Get("Location")
	poll, _ := pollReader(t, closedTopic)
	if p := poll(bob); shown(p) || p.Find(testID("poll-peek")).Length() != 0 || p.Find(testID("poll-form")).Length() != 1 {
		t.Errorf("bob before his vote: %q", p.Text())
	}
	if p := poll(visitor); shown(p) || !strings.Contains(p.Find(testID("poll-withheld")).Text(), "when the poll closes") {
		t.Errorf("a visitor: %q", p.Text())
	}
	post(bob, closedTopic+"/poll", url.Values{"choice": {"1"}})
	if p := poll(bob); shown(p) || !strings.Contains(p.Find(testID("poll-withheld")).Text(), "when the poll closes") || p.Find(testID("poll-change")).Length() != 1 {
		t.Errorf("bob after his vote: %q", p.Text())
	}
	// Its author and staff may look, as with any poll.
	for _, c := range []*webtest.Client{ann, boss} {
		look := poll(c).Find(testID("poll-peek")).AttrOr("href", "")
		if p := c.Get(look).Doc(t).Find(testID("topic-poll")); look == "" || !shown(p) || !strings.Contains(p.Find(testID("poll-results")).Text(), "1 vote") {
			t.Errorf("its author or staff look (%q): %q", look, p.Text())
		}
	}
	post(ann, closedTopic+"/poll/close", nil)
	if p := poll(bob); !shown(p) || p.Find(testID("poll-withheld")).Length() != 0 {
		t.Errorf("bob once it is closed: %q", p.Text())
	}

	votedTopic := open("voted").Header.Get("Location")
	poll, _ = pollReader(t, votedTopic)
	peek := bob.Get(votedTopic + "?post=1&results=1").Doc(t).Find(testID("topic-poll"))
	if shown(peek) || peek.Find(testID("poll-form")).Length() != 1 || !strings.Contains(peek.Find(testID("poll-withheld")).Text(), "once you vote") {
		t.Errorf("bob asks for the results before his vote: %q", peek.Text())
	}
	if p := poll(visitor); shown(p) || p.Find(testID("poll-withheld")).Length() != 1 {
		t.Errorf("a visitor: %q", p.Text())
	}
	post(bob, votedTopic+"/poll", url.Values{"choice": {"2"}})
	if p := poll(bob); !shown(p) || p.Find(testID("poll-withheld")).Length() != 0 {
		t.Errorf("bob after his vote: %q", p.Text())
	}
}
