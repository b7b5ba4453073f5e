package blog

import (
	"net/http"
	"strings"
	"time"

	"github.com/a-h/templ"
	"github.com/labstack/echo/v4"

	"github.com/harmony/harmony/internal/auth"
	"github.com/harmony/harmony/internal/comments"
	"github.com/harmony/harmony/internal/formrule"
	"github.com/harmony/harmony/internal/i18n"
	"github.com/harmony/harmony/internal/moderation"
	"github.com/harmony/harmony/internal/richtext"
	"github.com/harmony/harmony/internal/web"
	views "github.com/harmony/harmony/views/blog"
)

// commentsURL is where a post's comments are posted.
func commentsURL(slug string) string { return postURL(slug) + "/comments" }

// commentURL is a comment's own address.
func commentURL(slug, rk string) string { return commentsURL(slug) + "/" + comments.PathKey(rk) }

// commentKey is the RowKey a comment's address names.
func commentKey(c echo.Context) string { return comments.KeyFromPath(c.Param("comment")) }

// commentsProps are the comments of p from the request's cursor, as the
// request's viewer sees them, with form's refill; later is a page after
// the first. A post readers do not see yet shows none.
func (s *Service) commentsProps(c echo.Context, p PostRow, form views.CommentsProps) (views.CommentsProps, bool, error) {
	if !p.Visible(s.now()) {
		return form, false, nil
	}
	ctx, id := c.Request().Context(), auth.From(c)
	pager := web.Pager{Cursors: s.cursors, Query: "blog/comments|" + p.ID, URL: postURL(p.RowKey)}
	start, err := pager.Start(c)
	if err != nil {
		return form, false, err
	}
	page, err := s.Comments(ctx, p.ID, start)
	if err != nil {
		return form, false, err
	}
	if id.HasAccount() {
		form.Action = commentsURL(p.RowKey)
	} else {
		form.SignInURL = auth.SignInPath(postURL(p.RowKey) + "#comments")
	}
	if start != nil {
		form.NewestURL = postURL(p.RowKey) + "#comments"
	}
	for _, r := range page.Rows {
		form.Comments = append(form.Comments, s.commentView(c, p, r))
	}
	form.NextURL = pager.NextURL(page.Next)
	return form, start != nil, nil
}

// commentView is comment r of p as the request's viewer sees it: its
// author edits and deletes it, an admin deletes it, others report it.
func (s *Service) commentView(c echo.Context, p PostRow, r CommentRow) views.Comment {
	ctx, id := c.Request().Context(), auth.From(c)
	zone := id.Location()
	v := views.Comment{
		Anchor: comments.Anchor(r), Author: r.Author(ctx), AuthorURL: auth.ProfileURL(r.AuthorKey),
		When: i18n.DateTime(ctx, r.CreatedAt.In(zone)), Datetime: r.CreatedAt.Format(time.RFC3339),
		Hidden: r.Hidden, Deleted: r.Deleted, Edited: r.EditedAt != nil, Reply: r.Parent() != "",
	}
	if !r.Hidden {
		v.Body = templ.Raw(string(richtext.Render(r.Body)))
	}
	own := commentURL(p.RowKey, r.RowKey)
	if id.HasAccount() && r.Shown() {
		v.ReplyURL, v.ReplySlot = own+"/reply", comments.ReplySlot(r)
	}
	switch {
	case !id.HasAccount() || r.Deleted:
	case r.AuthorKey == id.MemberKey:
		v.DeleteURL = own + "/delete"
		if !r.Hidden {
			v.EditURL = own + "/edit"
		}
	case id.Admin:
		v.DeleteURL = own + "/delete"
	case s.Reports != nil && !r.Hidden:
		v.ReportURL = own + "/report"
	}
	return v
}

// addComment is POST /blog/:slug/comments (body): htmx gets the comments
// again, the new one first; without it, the post at its comments. A
// refused text comes back beside the field, as typed.
func (s *Service) addComment(c echo.Context) error {
	ctx := c.Request().Context()
	p, body := postScope.From(c), c.FormValue("body")
	row, err := s.AddComment(ctx, p, auth.From(c), body)
	if err == nil {
		return s.answerComment(c, row, "blog.comments.flash.added")
	}
	return web.AnswerForm(c, err, "", "", func(status int, errs formrule.FieldErrors) error {
		return s.renderComments(c, status, p, views.CommentsProps{Body: strings.ToValidUTF8(body, "\uFFFD"), Error: errs["body"]})
	}, web.Refusal{Field: "body", Err: ErrTooManyComments})
}

// renderComments answers a comment's change: htmx gets the section, a
// plain form the whole post.
func (s *Service) renderComments(c echo.Context, status int, p PostRow, form views.CommentsProps) error {
	if !web.HTMXFrom(c).Partial {
		return s.renderPost(c, status, form)
	}
	comments, _, err := s.commentsProps(c, p, form)
	if err != nil {
		return err
	}
	return web.RenderFragment(c, status, views.Comments(comments))
}

// commentsOn are the blog's comments for the kit's pages of one: a
// post's thread, its comment the route names, and the comment as the
// post shows it (quoted: without its buttons).
func (s *Service) commentsOn(quoted bool) comments.On {
	return comments.On{
		Thread: s.comments, Section: "blog",
		Of: func(c echo.Context) (comments.Target, error) {
			p := postScope.From(c)
			return comments.Target{Thread: p.ID, RowKey: commentKey(c), Title: p.Title, URL: postURL(p.RowKey)}, nil
		},
		Item: func(c echo.Context, r CommentRow) templ.Component {
			v := s.commentView(c, postScope.From(c), r)
			if quoted {
				v.ReplyURL, v.ReplySlot, v.EditURL, v.DeleteURL, v.ReportURL = "", "", "", "", ""
			}
			return views.CommentItem(v)
		},
	}
}

// commentEditing is a comment's edit (GET and POST
// /blog/:slug/comments/:comment/edit), its author's.
func (s *Service) commentEditing() comments.Editing {
	return comments.Editing{On: s.commentsOn(false),
		Wrap: func(r CommentRow, form templ.Component) templ.Component {
			return views.CommentEditItem(comments.Anchor(r), form)
		},
	}
}

// commentReplying is a reply to a comment (GET and POST
// /blog/:slug/comments/:comment/reply), a signed-in reader's: htmx gets
// the comments again, the reply under its comment; without it, the post
// at the reply.
func (s *Service) commentReplying() comments.Replying {
	return comments.Replying{On: s.commentsOn(true),
		Post: func(c echo.Context, t comments.Target, body string) (CommentRow, error) {
			return s.ReplyComment(c.Request().Context(), postScope.From(c), t.RowKey, auth.From(c), body)
		},
		Done: func(c echo.Context, t comments.Target, reply CommentRow) error {
			if web.HTMXFrom(c).Partial {
				web.Retarget(c, "#comments", "outerHTML")
			}
			return s.answerComment(c, reply, "comments.flash.replied")
		},
	}
}

// answerComment answers a comment or reply row written: htmx gets the
// comments again, a plain form the post at it with flash.
func (s *Service) answerComment(c echo.Context, row CommentRow, flash string) error {
	p := postScope.From(c)
	if web.HTMXFrom(c).Partial {
		return s.renderComments(c, http.StatusOK, p, views.CommentsProps{})
	}
	return web.FlashRedirect(c, flash, postURL(p.RowKey)+"#"+comments.Anchor(row))
}

// deleteComment is POST /blog/:slug/comments/:comment/delete: its author
// or an admin deletes it.
func (s *Service) deleteComment(c echo.Context) error {
	p, by := postScope.From(c), auth.From(c)
	if err := s.comments.Delete(c.Request().Context(), p.ID, commentKey(c), by, by.Admin); err != nil {
		return err
	}
	if web.HTMXFrom(c).Partial {
		return s.renderComments(c, http.StatusOK, p, views.CommentsProps{})
	}
	return web.FlashRedirect(c, "blog.comments.flash.deleted", postURL(p.RowKey)+"#comments")
}

// commentReport is the report of the route's comment, and its page: a
// comment shown, of someone else.
func (s *Service) commentReport(c echo.Context) (moderation.Report, moderation.Form, error) {
	ctx, id, p := c.Request().Context(), auth.From(c), postScope.From(c)
	r, err := s.comments.Get(ctx, p.ID, commentKey(c))
	if err == nil && (!r.Shown() || r.AuthorKey == id.MemberKey || !p.Visible(s.now())) {
		err = ErrNoComment
	}
	if err != nil {
		return moderation.Report{}, moderation.Form{}, err
	}
	report := moderation.Report{
		Target: moderation.Target{Kind: commentKind, Key: p.ID + "#" + r.RowKey}, Link: postURL(p.RowKey) + "#" + comments.Anchor(r),
		Excerpt: richtext.Plain(r.Body, 500), Author: r.AuthorKey, AuthorName: r.AuthorName, By: id.MemberKey, ByName: id.DisplayName,
	}
	return report, moderation.Form{Heading: "blog.comments.report_heading", BackLabel: p.Title, Action: commentURL(p.RowKey, r.RowKey) + "/report"}, nil
}
