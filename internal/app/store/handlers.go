package store

import (
	"context"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/a-h/templ"
	"github.com/labstack/echo/v4"

	"github.com/harmony/harmony/internal/auth"
	"github.com/harmony/harmony/internal/i18n"
	"github.com/harmony/harmony/internal/media"
	"github.com/harmony/harmony/internal/media/pictures"
	"github.com/harmony/harmony/internal/richtext"
	"github.com/harmony/harmony/internal/web"
	"github.com/harmony/harmony/views/components"
	views "github.com/harmony/harmony/views/store"
)

// Sizes of the lists.
const (
	listPage  = 12
	moreCards = 4
	// hiddenMost bounds the admins' list of hidden items.
	hiddenMost = 200
	// fewLeft is the stock from which an item says how many are left.
	fewLeft = 5
)

// Addresses.
const (
	homeURL     = "/store"
	newURL      = "/store/new"
	hiddenURL   = "/store/hidden"
	mediaPrefix = "/media/store/"
)

func itemURL(id string) string { return homeURL + "/" + id }

func categoryURL(cat string) string { return homeURL + "?category=" + url.QueryEscape(cat) }

// itemScope carries the item requireItem read to the handler.
var itemScope = web.NewScope[ItemRow]("store.item")

// requireItem reads the item the route names; a hidden one is not found
// but by admins.
func (s *Service) requireItem() echo.MiddlewareFunc {
	load := func(c echo.Context) (ItemRow, error) { return s.Item(c.Request().Context(), c.Param("id")) }
	return auth.RequireShown(itemScope, load, func(it ItemRow) bool { return it.Shown }, ErrNoItem)
}

// requireStored reads the item the route names for its deletion (admins
// alone): one being deleted too, so deleting it again finishes it.
func (s *Service) requireStored() echo.MiddlewareFunc {
	return itemScope.Require(func(c echo.Context) (ItemRow, error) { return s.stored(c.Request().Context(), c.Param("id")) })
}

// list is GET /store (?category=): the items shown, newest first.
func (s *Service) list(c echo.Context) error {
	ctx := c.Request().Context()
	cat := c.QueryParam("category")
	heading := i18n.T(ctx, "store.heading")
	if cat != "" {
		dept, ok, err := s.Departments.Find(ctx, cat)
		if err != nil {
			return err
		}
		if !ok {
			return web.BadRequest(i18n.T(ctx, "store.error.category"), nil)
		}
		heading = dept.Label(ctx)
	}
	label, err := s.Departments.Labeler(ctx)
	if err != nil {
		return err
	}
	depts, err := s.Departments.Active(ctx)
	if err != nil {
		return err
	}
	pager := web.Pager{Cursors: s.cursors, Query: "store/list|" + cat, URL: homeURL}
	if cat != "" {
		pager.URL = categoryURL(cat)
	}
	start, err := pager.Start(c)
	if err != nil {
		return err
	}
	page, err := s.List(ctx, cat, listPage, start)
	if err != nil {
		return err
	}
	p := views.ListProps{Heading: heading, Lead: i18n.T(ctx, "store.lead"), Cards: viewCards(ctx, page.Rows, label), NextURL: pager.NextURL(page.Next)}
	p.Chips = append(p.Chips, views.Chip{Label: i18n.T(ctx, "store.all"), Href: homeURL, Current: cat == ""})
	for _, d := range depts {
		p.Chips = append(p.Chips, views.Chip{Label: d.Label(ctx), Href: categoryURL(d.Slug), Current: d.Slug == cat})
	}
	if auth.IsAdmin(c) {
		p.NewURL, p.HiddenURL = newURL, hiddenURL
	}
	return web.Render(c, http.StatusOK, web.Page{Title: heading, Section: "store", Content: views.List(p), Fragment: views.Cards(p.Cards, p.NextURL)})
}

// viewCards are cards as lists show them, their departments named by
// label.
func viewCards(ctx context.Context, rows []CardRow, label func(string) string) []views.Card {
	out := make([]views.Card, 0, len(rows))
	for _, r := range rows {
		out = append(out, viewCard(ctx, r.ItemID, r.Card, label))
	}
	return out
}

// viewCard is an item's card as a list shows it.
func viewCard(ctx context.Context, id string, c Card, label func(string) string) views.Card {
	v := views.Card{
		Href: itemURL(id), Title: c.Title, Price: i18n.Money(ctx, c.PriceCents, c.Currency), ImageURL: pictures.URL(mediaPrefix, c.ImageKey, true),
		Category: label(c.Category), Hidden: !c.Shown,
	}
	switch {
	case c.SoldOut():
		v.Stock = "out"
	case c.Tracked && c.Stock <= fewLeft:
		v.Stock, v.Left = "few", c.Stock
	}
	return v
}

// item is GET /store/:id: the item, and others of its category.
func (s *Service) item(c echo.Context) error {
	ctx := c.Request().Context()
	it := itemScope.From(c)
	more, err := s.List(ctx, it.Category, moreCards+1, nil)
	if err != nil {
		return err
	}
	label, err := s.Departments.Labeler(ctx)
	if err != nil {
		return err
	}
	p := views.ItemProps{
		Card: viewCard(ctx, it.RowKey, it.Card, label), CategoryURL: categoryURL(it.Category),
		Description: templ.Raw(string(richtext.Render(it.Description))), BuyURL: it.BuyURL,
	}
	p.ImageURL = pictures.URL(mediaPrefix, it.ImageKey, false)
	p.Pictures = morePictures(it)
	for _, m := range more.Rows {
		if m.ItemID != it.RowKey && len(p.More) < moreCards {
			p.More = append(p.More, viewCard(ctx, m.ItemID, m.Card, label))
		}
	}
	if !it.available() {
		p.AlertURL = itemURL(it.RowKey) + "/alert"
		switch id := auth.Account(c); {
		case id == nil:
			p.Alert, p.SignInURL = "signin", "/signin?next="+url.QueryEscape(itemURL(it.RowKey))
		default:
			asked, err := s.Watching(ctx, it.RowKey, id.MemberKey)
			if err != nil {
				return err
			}
			p.Alert = "ask"
			if asked {
				p.Alert = "asked"
			}
		}
	}
	if auth.IsAdmin(c) {
		p.Admin, p.EditURL, p.DeleteURL = true, itemURL(it.RowKey)+"/edit", itemURL(it.RowKey)+"/delete"
	}
	return web.Render(c, http.StatusOK, web.Page{Title: it.Title, Section: "store", Content: views.Item(p)})
}

// alert is POST /store/:id/alert (on=true|false): "Tell me when it's
// back", or no longer.
func (s *Service) alert(c echo.Context) error {
	ctx := c.Request().Context()
	on, err := web.FormChoice(c, "on", map[string]bool{"true": true, "false": false}, "store.error.alert")
	if err != nil {
		return err
	}
	it, err := s.Watch(ctx, itemScope.From(c).RowKey, auth.From(c).MemberKey, on)
	if err != nil {
		return err
	}
	flash := "store.flash.alert_on"
	if !on {
		flash = "store.flash.alert_off"
	}
	return web.FlashRedirect(c, flash, itemURL(it.RowKey))
}

// hidden is GET /store/hidden (admins).
func (s *Service) hidden(c echo.Context) error {
	ctx := c.Request().Context()
	rows, err := s.Hidden(ctx, hiddenMost)
	if err != nil {
		return err
	}
	label, err := s.Departments.Labeler(ctx)
	if err != nil {
		return err
	}
	return web.Render(c, http.StatusOK, web.Page{Title: i18n.T(ctx, "store.hidden.heading"), Section: "store", Content: views.Hidden(views.HiddenProps{Cards: viewCards(ctx, rows, label)})})
}

// newItem is GET /store/new (admins).
func (s *Service) newItem(c echo.Context) error {
	return s.renderForm(c, http.StatusOK, homeURL, nil, Input{Category: Categories[0], Currency: "GBP", Shown: true}, nil)
}

// editItem is GET /store/:id/edit (admins).
func (s *Service) editItem(c echo.Context) error {
	return s.renderEdit(c, http.StatusOK, "")
}

// renderEdit shows the route's item in its editor as it is, with the
// more pictures' refusal, if any.
func (s *Service) renderEdit(c echo.Context, status int, pictureProblem string) error {
	it := itemScope.From(c)
	in := Input{
		Title: it.Title, Description: it.Description, Category: it.Category, Currency: it.Currency,
		Price: strconv.FormatFloat(float64(it.PriceCents)/100, 'f', 2, 64), BuyURL: it.BuyURL, Shown: it.Shown,
	}
	if it.Tracked {
		in.Stock = strconv.Itoa(it.Stock)
	}
	return s.renderForm(c, status, itemURL(it.RowKey)+"/edit", &it, in, nil, pictureProblem)
}

// renderForm shows the editor: of a new item (it nil) or of it, with
// its more pictures and their refusal, if any.
func (s *Service) renderForm(c echo.Context, status int, action string, it *ItemRow, in Input, errs FieldErrors, pictureProblem ...string) error {
	ctx := c.Request().Context()
	p := views.FormProps{
		Heading: i18n.T(ctx, "store.new"), Action: action, Back: homeURL, Shown: in.Shown, MaxMB: media.DefaultMaxBytes >> 20, Errors: map[string]string{},
		Values: map[string]string{"title": in.Title, "description": in.Description, "category": in.Category, "price": in.Price, "currency": in.Currency, "stock": in.Stock, "buyUrl": in.BuyURL},
	}
	// The active departments, and the item's own though retired.
	all, err := s.Departments.All(ctx)
	if err != nil {
		return err
	}
	for _, d := range all {
		if d.Active || d.Slug == in.Category {
			p.Categories = append(p.Categories, components.Option{Value: d.Slug, Label: d.Label(ctx)})
		}
	}
	if it != nil {
		p.Heading, p.Back, p.ImageURL = i18n.T(ctx, "store.edit_heading"), itemURL(it.RowKey), pictures.URL(mediaPrefix, it.ImageKey, true)
		var err error
		if p.Pictures, err = s.galleryOf(ctx, *it, strings.Join(pictureProblem, "")); err != nil {
			return err
		}
	}
	for field, key := range errs {
		p.Errors[field] = components.ErrText(ctx, key)
	}
	return web.Render(c, status, web.Page{Title: p.Heading, Section: "store", Content: views.Form(p)})
}

// input reads the item form and its picture, if one was chosen.
func input(c echo.Context) (Input, FieldErrors) {
	return web.BindWithUpload(c, "image", media.DefaultMaxBytes, func(in *Input) *[]byte { return &in.Image })
}

// create is POST /store (admins).
func (s *Service) create(c echo.Context) error {
	in, fe := input(c)
	if fe != nil {
		return s.renderForm(c, http.StatusUnprocessableEntity, homeURL, nil, in, fe)
	}
	it, err := s.Create(c.Request().Context(), in)
	return web.AnswerForm(c, err, "store.flash.created", itemURL(it.RowKey), func(status int, fe FieldErrors) error {
		return s.renderForm(c, status, homeURL, nil, in, fe)
	})
}

// update is POST /store/:id/edit (admins).
func (s *Service) update(c echo.Context) error {
	old := itemScope.From(c)
	action := itemURL(old.RowKey) + "/edit"
	in, fe := input(c)
	if fe != nil {
		return s.renderForm(c, http.StatusUnprocessableEntity, action, &old, in, fe)
	}
	it, err := s.Update(c.Request().Context(), old.RowKey, in)
	return web.AnswerForm(c, err, "store.flash.saved", itemURL(it.RowKey), func(status int, fe FieldErrors) error {
		return s.renderForm(c, status, action, &old, in, fe)
	})
}

// remove is POST /store/:id/delete (admins), after confirmation.
func (s *Service) remove(c echo.Context) error {
	ctx := c.Request().Context()
	it := itemScope.From(c)
	if !web.Confirmed(c) {
		return web.AskConfirm(c, views.DeleteProps(ctx, itemURL(it.RowKey)+"/delete"))
	}
	if err := s.Delete(ctx, it.RowKey); err != nil {
		return err
	}
	return web.FlashRedirect(c, "store.flash.deleted", homeURL)
}
