package blog_test

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"

	"github.com/harmony/harmony/internal/app/blog"
	"github.com/harmony/harmony/internal/storage"
	"github.com/harmony/harmony/internal/web/webtest"
)

// addComment posts body on the post at path as c, a second after the
// last one; htmx adds its headers.
func addComment(a *app, c *webtest.Client, path, body string, htmx bool) *webtest.Response {
	a.Clock.Advance(time.Second)
	var headers []string
	if htmx {
		headers = []string{"HX-Request", "true", "HX-Request-Type", "partial"}
	}
	return c.PostForm(path+"/comments", c.WithCSRF(path, url.Values{"body": {body}}), headers...)
}

// commentTexts are the comments a page shows, newest first.
func commentTexts(t *testing.T, c *webtest.Client, path string) []string {
	return texts(t, c, path, "comment")
}

// replyTexts are the replies a page shows, in order.
func replyTexts(t *testing.T, c *webtest.Client, path string) []string {
	return texts(t, c, path, "comment-reply")
}

// texts are the texts of the comments or replies (the items of test id
// kind) a page shows.
func texts(t *testing.T, c *webtest.Client, path, kind string) []string {
	t.Helper()
	var out []string
	c.Get(path).Doc(t).Find(testID(kind)).Each(func(_ int, s *goquery.Selection) {
		out = append(out, strings.TrimSpace(s.Find(testID("comment-body")).Text()+s.Find(testID("comment-hidden")).Text()))
	})
	return out
}

// TestCommentsOnAPost: members comment on a post readers see (newest
// first, Markdown rendered, the post's author told through the inbox);
// visitors read them and are offered to sign in; bad text and a draft
// are refused with nothing written, and so is editing or deleting
// another's comment; its author edits it (in place with htmx); its
// author or an admin deletes it; a report's take-down hides it (and
// ends its editing); older comments come a page at a time; deleting
// the post deletes its comments.
func TestCommentsOnAPost(t *testing.T) {
	t.Parallel()
	a := newApp(t, true)
	post := a.write(t, form("title", "Tour diary"))
	ned := a.Client()
	a.SignIn(ned, "ned@example.com")

	if res := addComment(a, a.member, post, "Loved the **Berlin** show!", false); res.StatusCode != http.StatusSeeOther || !strings.HasPrefix(res.Header.Get("Location"), post+"#comment-") {
		t.Fatalf("Mia comments: %d → %s", res.StatusCode, res.Header.Get("Location"))
	}
	res := addComment(a, ned, post, "See you in Riga.", true)
	if res.StatusCode != http.StatusOK || res.Doc(t).Find(testID("blog-comments")+" "+testID("comment")).Length() != 2 {
		t.Fatalf("Ned comments with htmx: %d", res.StatusCode)
	}
	if got := commentTexts(t, a.visitor, post); len(got) != 2 || got[0] != "See you in Riga." || got[1] != "Loved the Berlin show!" {
		t.Errorf("a visitor reads: %q", got)
	}
	page := a.visitor.Get(post).Doc(t)
	if page.Find(testID("comment-body")+" strong").Text() != "Berlin" || page.Find(testID("comment-form")).Length() != 0 || page.Find(testID("comment-signin")).Length() != 1 {
		t.Error("a visitor's page: Markdown not rendered, a form, or no way to sign in")
	}
	// Both comments, unread, are one line of the author's inbox.
	told := a.Inbox(a.admin).Filter(`:contains("commented on “Tour diary”")`)
	if told.Length() != 1 || !strings.Contains(told.Text(), "ned and 1 other commented") {
		t.Errorf("the post's author is told %d times: %q", told.Length(), a.Inbox(a.admin).Text())
	}

	// Refusals write nothing and keep what was typed.
	for _, tc := range []struct {
		name, body string
		status     int
	}{
		{"blank", "   ", http.StatusUnprocessableEntity},
		{"too long", strings.Repeat("x", blog.MaxComment+1), http.StatusUnprocessableEntity},
		{"a control character", "a\x00b", http.StatusUnprocessableEntity},
		{"bad UTF-8", "a\xffb", http.StatusUnprocessableEntity},
	} {
		for _, htmx := range []bool{false, true} {
			res := addComment(a, ned, post, tc.body, htmx)
			doc := res.Doc(t)
			if res.StatusCode != tc.status || res.Writes(t) != 0 || doc.Find(`[data-field="comment-body"]`).Length() != 1 {
				t.Errorf("%s (htmx %v): %d, %d writes", tc.name, htmx, res.StatusCode, res.Writes(t))
			}
			if tc.name == "too long" && doc.Find("#comment-body").Text() != tc.body {
				t.Errorf("%s (htmx %v): the text typed is lost", tc.name, htmx)
			}
		}
	}
	if res := a.visitor.PostForm(post+"/comments", url.Values{"body": {"hi"}}); res.StatusCode < 300 || res.StatusCode == http.StatusOK || res.Writes(t) != 0 {
		t.Errorf("a visitor comments: %d", res.StatusCode)
	}
	draft := a.write(t, form("title", "Secret plans", "action", "draft"))
	if res := addComment(a, a.admin, draft, "Note to self", false); res.StatusCode != http.StatusNotFound || res.Writes(t) != 0 {
		t.Errorf("a comment on a draft: %d (%d writes)", res.StatusCode, res.Writes(t))
	}

	// Deleting: not another's; one's own; an admin any.
	doc := a.member.Get(post).Doc(t)
	mine := doc.Find(testID("comment")).FilterFunction(func(_ int, s *goquery.Selection) bool {
		return s.Find(testID("comment-delete")).Length() == 1
	})
	if mine.Length() != 1 || !strings.Contains(mine.Text(), "Berlin") {
		t.Fatalf("Mia may delete %d comments: %q", mine.Length(), mine.Text())
	}
	nedsDelete, _ := ned.Get(post).Doc(t).Find(testID("comment")).First().Find("form").Attr("action")
	if !strings.HasSuffix(nedsDelete, "/delete") {
		t.Fatalf("Ned's delete: %q", nedsDelete)
	}
	if res := a.member.PostForm(nedsDelete, a.member.WithCSRF(post, nil)); res.StatusCode != http.StatusForbidden || res.Writes(t) != 0 {
		t.Errorf("Mia deletes Ned's comment: %d (%d writes)", res.StatusCode, res.Writes(t))
	}
	for _, bad := range []string{post + "/comments/nonsense/delete", post + "/comments/0000000000000000000-01ARZ3NDEKTSV4RRFFQ69G5FAV/delete"} {
		if res := ned.PostForm(bad, ned.WithCSRF(post, nil)); res.StatusCode != http.StatusNotFound || res.Writes(t) != 0 {
			t.Errorf("POST %s: %d", bad, res.StatusCode)
		}
	}

	// Editing: its author alone, in place with htmx; a refusal keeps the
	// text and writes nothing.
	nedsEdit := strings.TrimSuffix(nedsDelete, "/delete") + "/edit"
	if got, _ := ned.Get(post).Doc(t).Find(testID("comment")).First().Find(testID("comment-edit")).Attr("href"); got != nedsEdit {
		t.Errorf("Ned's edit link: %q", got)
	}
	if a.member.Get(post).Doc(t).Find(testID("comment")).First().Find(testID("comment-edit")).Length() != 0 {
		t.Error("Mia is offered to edit Ned's comment")
	}
	edit := func(c *webtest.Client, body string, htmx bool) *webtest.Response {
		headers := []string{}
		if htmx {
			headers = []string{"HX-Request", "true", "HX-Request-Type", "partial"}
		}
		return c.PostForm(nedsEdit, c.WithCSRF(post, url.Values{"body": {body}}), headers...)
	}
	if res := a.member.Get(nedsEdit); res.StatusCode != http.StatusForbidden {
		t.Errorf("Mia opens Ned's edit form: %d", res.StatusCode)
	}
	if res := edit(a.member, "Mine now", false); res.StatusCode != http.StatusForbidden || res.Writes(t) != 0 {
		t.Errorf("Mia edits Ned's comment: %d (%d writes)", res.StatusCode, res.Writes(t))
	}
	if page := ned.Get(nedsEdit); page.StatusCode != http.StatusOK || page.Doc(t).Find("textarea").Text() != "See you in Riga." {
		t.Errorf("Ned's edit page: %d", page.StatusCode)
	}
	if frag := ned.Get(nedsEdit, "HX-Request", "true", "HX-Request-Type", "partial").Doc(t); frag.Find(testID("comment-edit-form")).Length() != 1 || frag.Find(testID("blog-post")).Length() != 0 {
		t.Error("Ned's edit form with htmx is not the list item alone")
	}
	for _, htmx := range []bool{false, true} {
		res := edit(ned, "  ", htmx)
		if res.StatusCode != http.StatusUnprocessableEntity || res.Writes(t) != 0 || res.Doc(t).Find(`[data-testid="field-error"]`).Length() != 1 {
			t.Errorf("a blank edit (htmx %v): %d (%d writes)", htmx, res.StatusCode, res.Writes(t))
		}
	}
	res = edit(ned, "See you in **Riga** and Tallinn.", true)
	if frag := res.Doc(t); res.StatusCode != http.StatusOK || frag.Find(testID("comment-body")+" strong").Text() != "Riga" || frag.Find(testID("comment-edited")).Length() != 1 {
		t.Errorf("Ned's edit: %d %q", res.StatusCode, frag.Text())
	}
	if got := commentTexts(t, a.visitor, post); got[0] != "See you in Riga and Tallinn." {
		t.Errorf("after Ned's edit a visitor reads %q", got)
	}

	// Ned reports Mia's comment; the admins take it down: it shows as
	// removed, to everyone, and Mia can no longer edit it.
	report, _ := ned.Get(post).Doc(t).Find(testID("comment-report")).Attr("href")
	if report == "" || ned.Get(report).StatusCode != http.StatusOK {
		t.Fatalf("Ned's report link: %q", report)
	}
	if res := a.member.Get(strings.Replace(report, "/report", "", 1) + "/report"); res.StatusCode != http.StatusNotFound {
		t.Errorf("Mia's report page of her own comment: %d", res.StatusCode)
	}
	if res := ned.PostForm(report, ned.WithCSRF(report, url.Values{"reason": {"spam"}})); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("Ned reports: %d", res.StatusCode)
	}
	row := a.admin.Get("/admin/reports").Doc(t).Find(testID("report-row"))
	if !strings.Contains(row.Text(), "Blog comment") || !strings.Contains(row.Text(), "Loved the Berlin show!") {
		t.Fatalf("the queue: %q", row.Text())
	}
	id, _ := row.Attr("data-report")
	if res := a.admin.PostForm("/admin/reports/"+id+"/take-down", a.admin.WithCSRF("/admin/reports", nil)); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("take down: %d", res.StatusCode)
	}
	if got := commentTexts(t, a.visitor, post); len(got) != 2 || got[1] != "Removed by the moderators." {
		t.Errorf("after the take-down: %q", got)
	}
	miasEdit := strings.Replace(nedsEdit, commentKeyOf(nedsEdit), commentKeyOf(report), 1)
	if res := a.member.PostForm(miasEdit, a.member.WithCSRF(post, url.Values{"body": {"Honest!"}})); res.StatusCode != http.StatusNotFound || res.Writes(t) != 0 {
		t.Errorf("Mia edits her comment taken down: %d (%d writes)", res.StatusCode, res.Writes(t))
	}

	// An admin deletes Ned's comment (htmx: the section comes back).
	res = a.admin.PostForm(nedsDelete, a.admin.WithCSRF(post, nil), "HX-Request", "true", "HX-Request-Type", "partial")
	if res.StatusCode != http.StatusOK || res.Doc(t).Find(testID("comment")).Length() != 1 {
		t.Errorf("the admin deletes Ned's comment: %d", res.StatusCode)
	}

	// Thirty a page, older ones behind "Older comments", with htmx a
	// chunk alone.
	for i := range 32 {
		writer := []*webtest.Client{a.admin, a.member, ned}[i%3]
		if res := addComment(a, writer, post, fmt.Sprintf("Comment %02d", i), false); res.StatusCode != http.StatusSeeOther {
			t.Fatalf("comment %d: %d %.200s", i, res.StatusCode, res.Body)
		}
	}
	first := a.visitor.Get(post).Doc(t)
	next, _ := first.Find(testID("blog-comments") + " " + testID("load-more")).Attr("href")
	if first.Find(testID("comment")).Length() != 30 || next == "" {
		t.Fatalf("the first page: %d comments, next %q", first.Find(testID("comment")).Length(), next)
	}
	chunk := a.visitor.Get(next, "HX-Request", "true", "HX-Request-Type", "partial").Doc(t)
	if chunk.Find(testID("comment")).Length() != 3 || chunk.Find(testID("blog-post")).Length() != 0 {
		t.Errorf("the second page with htmx: %d comments", chunk.Find(testID("comment")).Length())
	}
	if res := a.visitor.Get(post + "?cursor=junk"); res.StatusCode != http.StatusBadRequest {
		t.Errorf("a bad cursor: %d", res.StatusCode)
	}

	// Deleting the post deletes its comments.
	if n := countComments(t, a); n != 33 {
		t.Fatalf("the table holds %d comments, not 33", n)
	}
	if res := a.admin.PostForm(post+"/delete", a.admin.WithCSRF(post, url.Values{"confirm": {"yes"}})); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("delete the post: %d", res.StatusCode)
	}
	if n := countComments(t, a); n != 0 {
		t.Errorf("%d comments outlive their post", n)
	}
}

// commentKeyOf is the comment's key in a comment's address.
func commentKeyOf(path string) string {
	_, rest, _ := strings.Cut(path, "/comments/")
	key, _, _ := strings.Cut(rest, "/")
	return key
}

// countComments counts every row of the comments table.
func countComments(t *testing.T, a *app) int {
	t.Helper()
	rows, err := storage.All[blog.CommentRow](t.Context(), a.Store.Table(blog.CommentsTable), storage.Query{Scan: true})
	if err != nil {
		t.Fatal(err)
	}
	return len(rows)
}

// TestRepliesToAComment: a member answers a comment, without JavaScript
// on a page of its own, with htmx under it; the reply shows under its
// comment (a reply to a reply answers the same comment), and the
// comment's author and the post's are told. A bad reply, or one to a
// comment taken down, writes nothing. A comment with replies that its
// author deletes stays as "deleted" until its last reply goes.
func TestRepliesToAComment(t *testing.T) {
	t.Parallel()
	a := newApp(t, true)
	post := a.write(t, form("title", "Tour diary"))
	ned := a.Client()
	a.SignIn(ned, "ned@example.com")
	if res := addComment(a, a.member, post, "Loved the Berlin show!", false); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("Mia comments: %d", res.StatusCode)
	}
	replyURL, _ := ned.Get(post).Doc(t).Find(testID("comment") + " " + testID("comment-reply-open")).Attr("href")
	if !strings.HasSuffix(replyURL, "/reply") {
		t.Fatalf("Ned's reply link: %q", replyURL)
	}
	if a.visitor.Get(post).Doc(t).Find(testID("comment-reply-open")).Length() != 0 {
		t.Error("a visitor is offered Reply")
	}

	// Without JavaScript: a page with the comment above a plain form.
	page := ned.Get(replyURL)
	doc := page.Doc(t)
	if page.StatusCode != http.StatusOK || !strings.Contains(doc.Find(testID("comment-reply-page")+" "+testID("comment")).Text(), "Berlin") {
		t.Fatalf("the reply page: %d", page.StatusCode)
	}
	if f := doc.Find(testID("comment-reply-form")); f.Length() != 1 || f.AttrOr("hx-post", "") != "" {
		t.Error("the reply page's form is missing, or posts with htmx")
	}
	reply := func(c *webtest.Client, to, body string, htmx bool) *webtest.Response {
		a.Clock.Advance(time.Second)
		var headers []string
		if htmx {
			headers = []string{"HX-Request", "true", "HX-Request-Type", "partial"}
		}
		return c.PostForm(to, c.WithCSRF(post, url.Values{"body": {body}}), headers...)
	}
	res := reply(ned, replyURL, "Me too, *the encore*!", false)
	if res.StatusCode != http.StatusSeeOther || !strings.HasPrefix(res.Header.Get("Location"), post+"#comment-") {
		t.Fatalf("Ned replies: %d → %s", res.StatusCode, res.Header.Get("Location"))
	}

	// With htmx: the form under the comment, then the comments again.
	frag := a.admin.Get(replyURL, "HX-Request", "true", "HX-Request-Type", "partial").Doc(t)
	if frag.Find(testID("comment-reply-form")).AttrOr("hx-post", "") != replyURL || frag.Find(testID("blog-post")).Length() != 0 {
		t.Error("the reply form with htmx is not the form alone")
	}
	nedsReply, _ := ned.Get(post).Doc(t).Find(testID("comment-reply") + " " + testID("comment-reply-open")).Attr("href")
	res = reply(a.admin, nedsReply, "Thanks, both!", true)
	if res.StatusCode != http.StatusOK || res.Header.Get("HX-Retarget") != "#comments" || res.Doc(t).Find(testID("comment-reply")).Length() != 2 {
		t.Fatalf("the author answers Ned's reply with htmx: %d, retarget %q", res.StatusCode, res.Header.Get("HX-Retarget"))
	}
	if got, want := replyTexts(t, a.visitor, post), []string{"Me too, the encore!", "Thanks, both!"}; strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("the replies read %q, want %q", got, want)
	}
	if got := commentTexts(t, a.visitor, post); len(got) != 1 {
		t.Errorf("the comments read %q, want Mia's alone", got)
	}
	if told := a.Inbox(a.member).Filter(`:contains("replied to your comment on “Tour diary”")`); told.Length() != 2 {
		t.Errorf("Mia is told of %d replies: %q", told.Length(), a.Inbox(a.member).Text())
	}
	if told := a.Inbox(a.admin).Filter(`:contains("commented on “Tour diary”")`); told.Length() != 1 || !strings.Contains(told.Text(), "ned and 1 other commented") {
		t.Errorf("the post's author is told %d times (Mia's comment, Ned's reply, one line): %q", told.Length(), a.Inbox(a.admin).Text())
	}

	// Refusals write nothing: a bad text (in place, with htmx), a
	// comment that is not there, a visitor.
	for _, htmx := range []bool{false, true} {
		res := reply(ned, replyURL, "  ", htmx)
		if res.StatusCode != http.StatusUnprocessableEntity || res.Writes(t) != 0 || res.Doc(t).Find(testID("comment-reply-form")).Length() != 1 || res.Header.Get("HX-Retarget") != "" {
			t.Errorf("a blank reply (htmx %v): %d, %d writes", htmx, res.StatusCode, res.Writes(t))
		}
	}
	for _, bad := range []string{post + "/comments/nonsense/reply", post + "/comments/0000000000000000000-01ARZ3NDEKTSV4RRFFQ69G5FAV/reply"} {
		if res := reply(ned, bad, "hello", false); res.StatusCode != http.StatusNotFound || res.Writes(t) != 0 {
			t.Errorf("POST %s: %d", bad, res.StatusCode)
		}
	}
	if res := a.visitor.PostForm(replyURL, url.Values{"body": {"hi"}}); res.StatusCode == http.StatusOK || res.StatusCode < 300 || res.Writes(t) != 0 {
		t.Errorf("a visitor replies: %d", res.StatusCode)
	}

	// Mia deletes her comment: it stays as deleted, the replies under
	// it; when they go, so does it.
	del, _ := a.member.Get(post).Doc(t).Find(testID("comment") + " " + testID("comment-delete")).Parent().Attr("action")
	if res := a.member.PostForm(del, a.member.WithCSRF(post, nil)); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("Mia deletes her comment: %d", res.StatusCode)
	}
	doc = a.visitor.Get(post).Doc(t)
	if doc.Find(testID("comment-deleted")).Length() != 1 || doc.Find(testID("comment-reply")).Length() != 2 || strings.Contains(doc.Text(), "Berlin") {
		t.Fatalf("after Mia's delete: %d deleted, %d replies", doc.Find(testID("comment-deleted")).Length(), doc.Find(testID("comment-reply")).Length())
	}
	if res := reply(ned, replyURL, "Still here?", false); res.StatusCode != http.StatusNotFound || res.Writes(t) != 0 {
		t.Errorf("a reply to a deleted comment: %d", res.StatusCode)
	}
	for _, c := range []*webtest.Client{ned, a.admin} {
		del, _ := c.Get(post).Doc(t).Find(testID("comment-reply")).FilterFunction(func(_ int, s *goquery.Selection) bool {
			return s.Find(testID("comment-delete")).Length() == 1
		}).First().Find("form").Attr("action")
		if res := c.PostForm(del, c.WithCSRF(post, nil)); res.StatusCode != http.StatusSeeOther {
			t.Fatalf("a reply's author deletes it: %d", res.StatusCode)
		}
	}
	if doc := a.visitor.Get(post).Doc(t); doc.Find(testID("comment-deleted")).Length() != 0 || doc.Find(testID("comments-empty")).Length() != 1 {
		t.Errorf("with its replies gone, the deleted comment still shows")
	}
	if n := countComments(t, a); n != 0 {
		t.Errorf("the table holds %d comments", n)
	}
}
