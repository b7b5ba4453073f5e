package blog

import (
	"context"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/a-h/templ"
	"github.com/labstack/echo/v4"

	"github.com/harmony/harmony/internal/auth"
	"github.com/harmony/harmony/internal/i18n"
	"github.com/harmony/harmony/internal/media"
	"github.com/harmony/harmony/internal/media/pictures"
	"github.com/harmony/harmony/internal/memberdata"
	"github.com/harmony/harmony/internal/web"
	views "github.com/harmony/harmony/views/blog"
	"github.com/harmony/harmony/views/components"
)

// Sizes of the lists.
const (
	listPage  = 12
	moreCards = 3
	feedSize  = 20
	// unlistedMost bounds each of the admins' lists of drafts and
	// scheduled posts.
	unlistedMost = 100
)

// Addresses.
const (
	homeURL     = "/blog"
	newURL      = "/blog/new"
	unlistedURL = "/blog/drafts"
	feedURL     = "/blog/feed.xml"
	mediaPrefix = "/media/blog/"
)

func postURL(slug string) string { return homeURL + "/" + slug }

func tagURL(tag string) string { return homeURL + "?tag=" + url.QueryEscape(tag) }

// postScope carries the post requirePost read to the handler.
var postScope = web.NewScope[PostRow]("blog.post")

// requirePost reads the post the route names; one readers may not see
// yet (a draft, a post scheduled for later) is not found but by admins.
func (s *Service) requirePost() echo.MiddlewareFunc {
	load := func(c echo.Context) (PostRow, error) { return s.Post(c.Request().Context(), c.Param("slug")) }
	return auth.RequireShown(postScope, load, func(p PostRow) bool { return p.Visible(s.now()) }, ErrNoPost)
}

// requireStored reads the post the route names for its deletion (admins
// alone): one being deleted too, so deleting it again finishes it.
func (s *Service) requireStored() echo.MiddlewareFunc {
	return postScope.Require(func(c echo.Context) (PostRow, error) { return s.stored(c.Request().Context(), c.Param("slug")) })
}

// list is GET /blog (?tag=): the newest posts, a page at a time.
func (s *Service) list(c echo.Context) error {
	ctx := c.Request().Context()
	tag := c.QueryParam("tag")
	if tag != "" && !tagPattern.MatchString(tag) {
		return web.BadRequest(i18n.T(ctx, "blog.error.tag"), nil)
	}
	pager := web.Pager{Cursors: s.cursors, Query: "blog/list|" + tag, URL: homeURL}
	if tag != "" {
		pager.URL = tagURL(tag)
	}
	start, err := pager.Start(c)
	if err != nil {
		return err
	}
	page, err := s.List(ctx, tag, listPage, start)
	if err != nil {
		return err
	}
	zone := auth.From(c).Location()
	p := views.ListProps{Tag: tag, Cards: s.viewCards(ctx, page.Rows, zone, tag), Featured: tag == "" && start == nil, FeedURL: feedURL, TagsURL: tagsURL, NextURL: pager.NextURL(page.Next)}
	if auth.IsAdmin(c) {
		p.NewURL, p.UnlistedURL = newURL, unlistedURL
	}
	if p.Follow, err = s.followState(c); err != nil {
		return err
	}
	title := i18n.T(ctx, "module.blog.name")
	if tag != "" {
		title = "#" + tag + " · " + title
	}
	return web.Render(c, http.StatusOK, web.Page{Title: title, Section: "blog", Content: views.List(p), Fragment: views.Cards(p.Cards, p.NextURL)})
}

// viewCards are index rows as lists show them, dates in zone; current marks
// the tag a list is of.
func (s *Service) viewCards(ctx context.Context, rows []CardRow, zone *time.Location, current string) []views.Card {
	out := make([]views.Card, 0, len(rows))
	for _, r := range rows {
		out = append(out, s.viewCard(ctx, r.Slug, r.Card, zone, current))
	}
	return out
}

// viewCard is a post's card as a list shows it.
func (s *Service) viewCard(ctx context.Context, slug string, c Card, zone *time.Location, current string) views.Card {
	v := views.Card{
		Href: postURL(slug), Title: c.Title, Excerpt: c.Excerpt, CoverURL: pictures.URL(mediaPrefix, c.CoverKey, true),
		Author: memberdata.Name(ctx, c.AuthorKey, c.AuthorName), Minutes: c.Minutes, Tags: tags(c.TagList(), current),
	}
	switch {
	case !c.Published:
		v.Status = "draft"
	case c.PublishAt.After(s.now()):
		v.Status = "scheduled"
	}
	if c.Published {
		v.Date, v.Datetime = i18n.Date(ctx, c.PublishAt.In(zone)), c.PublishAt.UTC().Format(time.RFC3339)
		if v.Status == "scheduled" {
			v.Date = i18n.DateTime(ctx, c.PublishAt.In(zone))
		}
	}
	return v
}

func tags(list []string, current string) []views.Tag {
	out := make([]views.Tag, 0, len(list))
	for _, t := range list {
		out = append(out, views.Tag{Label: t, Href: tagURL(t), Current: t == current})
	}
	return out
}

// post is GET /blog/:slug: the post, and the newest others.
func (s *Service) post(c echo.Context) error {
	return s.renderPost(c, http.StatusOK, views.CommentsProps{})
}

// renderPost is the route's post with its comments (a page of them from
// the request's cursor); form refills a refused comment.
func (s *Service) renderPost(c echo.Context, status int, form views.CommentsProps) error {
	ctx := c.Request().Context()
	p := postScope.From(c)
	zone := auth.From(c).Location()
	comments, later, err := s.commentsProps(c, p, form)
	if err != nil {
		return err
	}
	if later && web.HTMXFrom(c).Partial {
		return web.RenderFragment(c, status, views.CommentsChunk(comments.Comments, comments.NextURL))
	}
	more, err := s.List(ctx, "", moreCards+1, nil)
	if err != nil {
		return err
	}
	props := views.PostProps{Card: s.viewCard(ctx, p.RowKey, p.Card, zone, ""), Body: templ.Raw(string(bodies.Showing(p.Body, p.pictureURLs())))}
	props.CoverURL = pictures.URL(mediaPrefix, p.CoverKey, false)
	props.Excerpt = p.Summary
	for _, m := range more.Rows {
		if m.Slug != p.RowKey && len(props.More) < moreCards {
			props.More = append(props.More, s.viewCard(ctx, m.Slug, m.Card, zone, ""))
		}
	}
	if auth.IsAdmin(c) {
		props.Admin, props.EditURL, props.DeleteURL = true, editURL(p.RowKey), postURL(p.RowKey)+"/delete"
		if p.Published {
			props.UnpublishURL = postURL(p.RowKey) + "/unpublish"
		}
	}
	if p.Visible(s.now()) {
		props.Comments = &comments
	}
	return web.Render(c, status, web.Page{Title: p.Title, Section: "blog", Content: views.Post(props)})
}

// feed is GET /blog/feed.xml: RSS of the newest posts.
func (s *Service) feed(c echo.Context) error {
	ctx := c.Request().Context()
	page, err := s.List(ctx, "", feedSize, nil)
	if err != nil {
		return err
	}
	f := web.Feed{Title: i18n.T(ctx, "blog.heading"), Link: s.baseURL + homeURL, Description: i18n.T(ctx, "blog.lead")}
	for _, r := range page.Rows {
		f.Items = append(f.Items, web.FeedItem{Title: r.Title, Link: s.baseURL + postURL(r.Slug), Description: r.Excerpt, Published: r.PublishAt})
	}
	return web.ServeFeed(c, f)
}

// unlisted is GET /blog/drafts (admins): the scheduled posts and the
// drafts.
func (s *Service) unlisted(c echo.Context) error {
	ctx := c.Request().Context()
	scheduled, drafts, err := s.Unlisted(ctx, unlistedMost)
	if err != nil {
		return err
	}
	zone := auth.From(c).Location()
	p := views.UnlistedProps{Scheduled: s.viewCards(ctx, scheduled, zone, ""), Drafts: s.viewCards(ctx, drafts, zone, "")}
	return web.Render(c, http.StatusOK, web.Page{Title: i18n.T(ctx, "blog.unlisted.heading"), Section: "blog", Content: views.Unlisted(p)})
}

// newPost is GET /blog/new (admins).
func (s *Service) newPost(c echo.Context) error {
	return s.renderForm(c, http.StatusOK, homeURL, nil, Input{}, nil, nil)
}

// editPost is GET /blog/:slug/edit (admins).
func (s *Service) editPost(c echo.Context) error {
	p := postScope.From(c)
	return s.renderForm(c, http.StatusOK, editURL(p.RowKey), &p, formOf(c, p), nil, nil)
}

// formOf is p as its editor shows it, times in the viewer's zone.
func formOf(c echo.Context, p PostRow) Input {
	in := Input{Title: p.Title, Slug: p.RowKey, Summary: p.Summary, Body: p.Body, Tags: strings.Join(p.TagList(), ", ")}
	if p.Published {
		in.PublishAt = p.PublishAt.In(auth.From(c).Location()).Format("2006-01-02T15:04")
	}
	return in
}

// renderForm shows the editor: of a new post (p nil) or of p, with the
// text's preview (nil for none) and the pictures panel's refusal, if any.
func (s *Service) renderForm(c echo.Context, status int, action string, p *PostRow, in Input, preview templ.Component, errs FieldErrors, pictureRefusal ...string) error {
	ctx := c.Request().Context()
	zone := auth.From(c).Location()
	props := views.FormProps{
		Heading: i18n.T(ctx, "blog.new"), Action: action, Back: homeURL, MaxTags: MaxTags, MaxMB: media.DefaultMaxBytes >> 20,
		Zone: i18n.ZoneName(ctx, zone.String(), s.now()), Errors: map[string]string{},
		Values:  map[string]string{"title": in.Title, "slug": in.Slug, "summary": in.Summary, "body": in.Body, "tags": in.Tags, "publishAt": in.PublishAt},
		Preview: preview,
	}
	if p != nil {
		props.Heading, props.Back = i18n.T(ctx, "blog.edit_heading"), postURL(p.RowKey)
		props.CoverURL, props.SlugFixed, props.Published = pictures.URL(mediaPrefix, p.CoverKey, true), p.Published, p.Published
		pics := picturesProps(*p)
		if len(pictureRefusal) > 0 {
			pics.Error = pictureRefusal[0]
		}
		props.Pictures = &pics
	}
	for field, key := range errs {
		props.Errors[field] = components.ErrText(ctx, key)
	}
	return web.Render(c, status, web.Page{Title: props.Heading, Section: "blog", Content: views.Form(props)})
}

// input reads the post form and its cover, if one was chosen: a cover
// refused while reading (too large) is a field error.
func input(c echo.Context) (Input, FieldErrors) {
	return web.BindWithUpload(c, "cover", media.DefaultMaxBytes, func(in *Input) *[]byte { return &in.Cover })
}

// flashFor is the message of a post saved as it now stands.
func (s *Service) flashFor(p PostRow) string {
	switch {
	case !p.Published:
		return "blog.flash.draft"
	case p.PublishAt.After(s.now()):
		return "blog.flash.scheduled"
	}
	return "blog.flash.published"
}

// create is POST /blog (admins).
func (s *Service) create(c echo.Context) error {
	ctx := c.Request().Context()
	id := auth.From(c)
	in, fe := input(c)
	if web.PreviewAsked(c) {
		return s.previewForm(c, homeURL, nil, in)
	}
	if fe != nil {
		return s.renderForm(c, http.StatusUnprocessableEntity, homeURL, nil, in, nil, fe)
	}
	p, err := s.Create(ctx, Person{Key: id.MemberKey, Name: id.DisplayName}, in, id.Location())
	return web.AnswerForm(c, err, s.flashFor(p), postURL(p.RowKey), func(status int, fe FieldErrors) error {
		return s.renderForm(c, status, homeURL, nil, in, nil, fe)
	})
}

// previewForm is the editor again, with everything typed (but a cover
// chosen, which a browser does not send twice) and the text's preview
// under it, or why there is none on the text: the form's "Preview"
// without JavaScript. Nothing is saved.
func (s *Service) previewForm(c echo.Context, action string, p *PostRow, in Input) error {
	status, rendered, refusal := s.preview.Render(c, in.Body)
	var errs FieldErrors
	if refusal != "" {
		errs = FieldErrors{"body": refusal}
	}
	return s.renderForm(c, status, action, p, in, rendered, errs)
}

// update is POST /blog/:slug/edit (admins).
func (s *Service) update(c echo.Context) error {
	ctx := c.Request().Context()
	old := postScope.From(c)
	action := editURL(old.RowKey)
	in, fe := input(c)
	if web.PreviewAsked(c) {
		return s.previewForm(c, action, &old, in)
	}
	if fe != nil {
		return s.renderForm(c, http.StatusUnprocessableEntity, action, &old, in, nil, fe)
	}
	p, err := s.Update(ctx, old, in, auth.From(c).Location())
	return web.AnswerForm(c, err, s.flashFor(p), postURL(p.RowKey), func(status int, fe FieldErrors) error {
		return s.renderForm(c, status, action, &old, in, nil, fe)
	})
}

// unpublish is POST /blog/:slug/unpublish (admins).
func (s *Service) unpublish(c echo.Context) error {
	p, err := s.Unpublish(c.Request().Context(), postScope.From(c).RowKey)
	if err != nil {
		return err
	}
	return web.FlashRedirect(c, "blog.flash.unpublished", postURL(p.RowKey))
}

// remove is POST /blog/:slug/delete (admins), after confirmation.
func (s *Service) remove(c echo.Context) error {
	ctx := c.Request().Context()
	p := postScope.From(c)
	if !web.Confirmed(c) {
		return web.AskConfirm(c, views.DeleteProps(ctx, postURL(p.RowKey)+"/delete"))
	}
	if err := s.Delete(ctx, p); err != nil {
		return err
	}
	return web.FlashRedirect(c, "blog.flash.deleted", homeURL)
}

// picturesProps is the editor's pictures panel of p.
func picturesProps(p PostRow) views.PicturesProps {
	props := views.PicturesProps{Action: postURL(p.RowKey) + "/pictures", Max: MaxPictures, MaxMB: media.DefaultMaxBytes >> 20}
	for _, key := range p.PictureList() {
		_, file, _ := strings.Cut(key, "/")
		props.Pictures = append(props.Pictures, views.Picture{
			SmallURL: pictures.URL(mediaPrefix, key, true), Markdown: "![](" + pictures.URL(mediaPrefix, key, false) + ")", DeleteURL: props.Action + "/" + file + "/delete",
		})
	}
	return props
}

// editURL is a post's editor.
func editURL(slug string) string { return postURL(slug) + "/edit" }

// answerPictures answers a change of the pictures, done (the message
// key done) or refused (the message refusal): with htmx the panel in
// place, so the text being written stays as it is; else the editor.
func (s *Service) answerPictures(c echo.Context, status int, p PostRow, done, refusal string) error {
	if web.HTMXFrom(c).Request {
		props := picturesProps(p)
		props.Error = refusal
		if done != "" {
			props.Message = i18n.T(c.Request().Context(), done)
		}
		return web.RenderFragment(c, status, views.Pictures(props))
	}
	if refusal == "" {
		return web.FlashRedirect(c, done, editURL(p.RowKey)+"#pictures")
	}
	return s.renderForm(c, status, editURL(p.RowKey), &p, formOf(c, p), nil, nil, refusal)
}

// addPicture is POST /blog/:slug/pictures (admins): a picture for the
// text.
func (s *Service) addPicture(c echo.Context) error {
	ctx := c.Request().Context()
	p := postScope.From(c)
	data, err := web.ReadUpload(c, "picture", media.DefaultMaxBytes)
	if err == nil {
		var added PostRow
		if added, err = s.AddPicture(ctx, p, data); err == nil {
			return s.answerPictures(c, http.StatusOK, added, "blog.flash.picture_added", "")
		}
	}
	if status, key, ok := web.UploadRefusal(err); ok {
		return s.answerPictures(c, status, p, "", i18n.T(ctx, key, "mb", media.DefaultMaxBytes>>20))
	}
	if status, message, ok := web.Refused(ctx, err); ok {
		return s.answerPictures(c, status, p, "", message)
	}
	return err
}

// deletePicture is POST /blog/:slug/pictures/:file/delete (admins),
// after confirmation.
func (s *Service) deletePicture(c echo.Context) error {
	ctx := c.Request().Context()
	p := postScope.From(c)
	n := slices.Index(p.PictureList(), p.ID+"/"+c.Param("file")) + 1
	if n == 0 {
		return ErrNoPost
	}
	if !web.Confirmed(c) {
		return web.AskConfirm(c, views.DeletePictureProps(ctx, c.Request().URL.Path, n))
	}
	p, err := s.DeletePicture(ctx, p.RowKey, c.Param("file"))
	if err != nil {
		return err
	}
	return s.answerPictures(c, http.StatusOK, p, "blog.flash.picture_deleted", "")
}

// followState is the reader's "Follow the blog": "signin" for a visitor
// (so the shared page needs no token), else whether they follow.
func (s *Service) followState(c echo.Context) (string, error) {
	id := auth.Account(c)
	if id == nil {
		return "signin", nil
	}
	on, err := s.Following(c.Request().Context(), id.MemberKey)
	if on {
		return "following", err
	}
	return "follow", err
}

// follow is POST /blog/follow (on=true|false).
func (s *Service) follow(c echo.Context) error {
	on, err := web.FormChoice(c, "on", map[string]bool{"true": true, "false": false}, "blog.error.follow")
	if err != nil {
		return err
	}
	if err := s.Follow(c.Request().Context(), auth.From(c).MemberKey, on); err != nil {
		return err
	}
	flash := "blog.flash.following"
	if !on {
		flash = "blog.flash.unfollowed"
	}
	return web.FlashRedirect(c, flash, homeURL)
}
