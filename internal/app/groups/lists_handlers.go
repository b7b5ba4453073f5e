package groups

import (
	"errors"
	"net/http"
	"net/url"
	"slices"
	"time"

	"github.com/a-h/templ"
	"github.com/labstack/echo/v4"

	"github.com/harmony/harmony/internal/auth"
	"github.com/harmony/harmony/internal/formrule"
	"github.com/harmony/harmony/internal/i18n"
	"github.com/harmony/harmony/internal/memberdata"
	"github.com/harmony/harmony/internal/web"
	views "github.com/harmony/harmony/views/groups"
)

// listsURL is a group's Lists tab; listURL one list's page.
func listsURL(groupID string) string { return groupURL(groupID) + "/lists" }

func listURL(groupID, listID string) string { return listsURL(groupID) + "/" + url.PathEscape(listID) }

var listScope = web.NewScope[ListRow]("groups.list")

// RequireList is the route middleware for a list's routes, after Require:
// it reads the list (:list) of the group once; handlers read it with
// openedList.
func (s *Service) RequireList() echo.MiddlewareFunc {
	return listScope.Require(func(c echo.Context) (ListRow, error) {
		m, _ := Opened(c)
		return s.List(c.Request().Context(), m, c.Param("list"))
	})
}

// openedList is what RequireList read.
func openedList(c echo.Context) ListRow { return listScope.From(c) }

// listsPage is GET /groups/:id/lists: the group's lists and "New list".
func (h *handlers) listsPage(c echo.Context) error {
	return h.renderLists(c, http.StatusOK, "", "")
}

func (h *handlers) renderLists(c echo.Context, status int, name, nameError string) error {
	ctx := c.Request().Context()
	m, g := Opened(c)
	lists, err := h.svc.Lists(ctx, m)
	if err != nil {
		return err
	}
	p := views.ListsProps{
		Nav:  views.GroupNav{Name: g.GroupName, URL: groupURL(g.GroupID), Current: "lists"},
		Name: name, NameError: nameError, Full: len(lists) >= MaxLists, Max: MaxLists,
	}
	for _, l := range lists {
		p.Lists = append(p.Lists, views.ListCard{Name: l.Name, Href: listURL(g.GroupID, l.ListID), Items: l.Items, Open: l.Open})
	}
	return web.RenderLive(c, status, web.Page{Title: i18n.T(ctx, "groups.lists.heading") + " · " + g.GroupName, Section: "groups", Content: views.Lists(p)})
}

// createList is POST /groups/:id/lists: a new list, then its page.
func (h *handlers) createList(c echo.Context) error {
	ctx := c.Request().Context()
	m, g := Opened(c)
	name := c.FormValue(ListNameField)
	l, err := h.svc.CreateList(ctx, m, auth.From(c), name)
	return web.AnswerForm(c, err, "", listURL(g.GroupID, l.ListID), func(status int, errs formrule.FieldErrors) error {
		return h.renderLists(c, status, name, i18n.T(ctx, errs[ListNameField]))
	}, web.Refusal{Err: ErrTooManyLists, Field: ListNameField})
}

// listPage is GET /groups/:id/lists/:list.
func (h *handlers) listPage(c echo.Context) error {
	l := openedList(c)
	return h.renderList(c, http.StatusOK, l, views.ListBody{}, l.Name, "")
}

// renderList renders list l's page, or for htmx the part a form swaps:
// the body (add box and items), with the name out of band.
func (h *handlers) renderList(c echo.Context, status int, l ListRow, body views.ListBody, renameValue, renameError string) error {
	ctx := c.Request().Context()
	m, g := Opened(c)
	body, err := h.listBody(c, l, body)
	if err != nil {
		return err
	}
	p := views.ListPageProps{
		Nav:  views.GroupNav{Name: g.GroupName, URL: groupURL(g.GroupID), Current: "lists"},
		Name: l.Name, ListsURL: listsURL(g.GroupID), Body: body,
		RenameValue: renameValue, RenameError: renameError,
	}
	if MayDeleteList(m, l) {
		d := views.DeleteListConfirm(ctx, body.URL, l.Name)
		p.Delete = &d
	}
	return web.Render(c, status, web.Page{Title: l.Name + " · " + g.GroupName, Section: "groups", Content: views.ListPage(p), Fragment: views.ListFragment(l.Name, body)})
}

// listBody fills b (its refill kept) with list l's items; those the
// page's live refresh names as editing (?editing=ID) stay as the page
// shows them.
func (h *handlers) listBody(c echo.Context, l ListRow, b views.ListBody) (views.ListBody, error) {
	open, ticked, err := h.svc.ListItems(c.Request().Context(), l)
	if err != nil {
		return b, err
	}
	b.URL, b.Max = listURL(l.PartitionKey, l.ListID), MaxListItems
	b.Full = len(open)+len(ticked) >= MaxListItems
	b.Open, b.Ticked = nil, nil
	editing := c.QueryParams()["editing"]
	item := func(r ListItemRow) views.ListItem {
		it := h.listItem(c, l, r)
		it.Preserve = slices.Contains(editing, it.ID)
		return it
	}
	for _, r := range open {
		b.Open = append(b.Open, item(r))
	}
	for _, r := range ticked {
		b.Ticked = append(b.Ticked, item(r))
	}
	return b, nil
}

// listItem is item r of list l as the page shows it to the viewer.
func (h *handlers) listItem(c echo.Context, l ListRow, r ListItemRow) views.ListItem {
	u := listURL(l.PartitionKey, l.ListID) + "/items/" + r.ID()
	it := views.ListItem{ID: r.ID(), Text: r.Text, Ticked: r.Ticked, TickURL: u + "/tick", EditURL: u + "/edit", DeleteURL: u + "/delete"}
	if r.Ticked {
		it.TickedBy = memberdata.Name(c.Request().Context(), r.TickedBy, r.TickedByName)
		if it.TickedBy == "" {
			it.TickedBy = i18n.T(c.Request().Context(), "groups.lists.someone")
		}
		if r.TickedAt != nil {
			it.TickedWhen = tickedWhen(c, *r.TickedAt, h.svc.now())
			it.TickedAt = r.TickedAt.UTC().Format(time.RFC3339)
		}
	}
	return it
}

// tickedWhen is when an item was ticked, short, in the viewer's zone:
// the time today, else the day ("Mon 2 Jun").
func tickedWhen(c echo.Context, at, now time.Time) string {
	zone := auth.From(c).Location()
	at, now = at.In(zone), now.In(zone)
	if at.Format(time.DateOnly) == now.Format(time.DateOnly) {
		return at.Format("15:04")
	}
	return i18n.Day(c.Request().Context(), at)
}

// renameList is POST /groups/:id/lists/:list/rename.
func (h *handlers) renameList(c echo.Context) error {
	ctx := c.Request().Context()
	l := openedList(c)
	name := c.FormValue(ListNameField)
	_, err := h.svc.RenameList(ctx, l, name)
	return web.AnswerForm(c, err, "groups.lists.flash.renamed", listURL(l.PartitionKey, l.ListID), func(status int, errs formrule.FieldErrors) error {
		return h.renderList(c, status, l, views.ListBody{}, name, i18n.T(ctx, errs[ListNameField]))
	})
}

// deleteList is POST /groups/:id/lists/:list/delete: after the question,
// the list and its items go (its creator's or an owner's).
func (h *handlers) deleteList(c echo.Context) error {
	ctx := c.Request().Context()
	m, g := Opened(c)
	l := openedList(c)
	if !MayDeleteList(m, l) {
		return ErrNotListCreator
	}
	if !web.Confirmed(c) {
		return web.AskConfirm(c, views.DeleteListConfirm(ctx, listURL(g.GroupID, l.ListID), l.Name))
	}
	if err := h.svc.DeleteList(ctx, m, l); err != nil {
		return err
	}
	return web.FlashRedirect(c, "groups.lists.flash.deleted", listsURL(g.GroupID))
}

// addListItem is POST /groups/:id/lists/:list/items: htmx gets the body
// back with an empty box (which keeps the focus), a form goes back to
// the list; a refusal shows the box with what was typed and why.
func (h *handlers) addListItem(c echo.Context) error {
	ctx := c.Request().Context()
	l := openedList(c)
	text := c.FormValue(ItemTextField)
	_, err := h.svc.AddListItem(ctx, l, auth.From(c), text)
	if err == nil && web.HTMXFrom(c).Partial {
		return h.renderList(c, http.StatusOK, l, views.ListBody{}, l.Name, "")
	}
	return web.AnswerForm(c, err, "", listURL(l.PartitionKey, l.ListID)+"#list-item-text", func(status int, errs formrule.FieldErrors) error {
		return h.renderList(c, status, l, views.ListBody{Text: text, Error: i18n.T(ctx, errs[ItemTextField])}, l.Name, "")
	}, web.Refusal{Err: ErrListFull, Field: ItemTextField})
}

// tickListItem is POST …/items/:item/tick with done=true or false: htmx
// gets the item back in place (and the tools under the list out of
// band), a form goes back to the list at the item.
func (h *handlers) tickListItem(c echo.Context) error {
	ctx := c.Request().Context()
	l := openedList(c)
	done := c.FormValue("done")
	if done != "true" && done != "false" {
		return web.BadRequest(i18n.T(ctx, "groups.lists.error.tick"), errors.New("groups: tick without done"))
	}
	item, err := h.svc.TickListItem(ctx, l, auth.From(c), c.Param("item"), done == "true")
	if err != nil {
		return err
	}
	return h.answerItem(c, l, item)
}

// answerItem ends a change of item: htmx gets it in place, with the tools
// under the list out of band; a form goes back to the list at the item.
func (h *handlers) answerItem(c echo.Context, l ListRow, item ListItemRow) error {
	if !web.HTMXFrom(c).Partial {
		return web.Redirect(c, listURL(l.PartitionKey, l.ListID)+"#item-"+item.ID())
	}
	return h.renderItemWithTools(c, l, views.ListItemRow(h.listItem(c, l, item)))
}

// renderItemWithTools answers htmx with row (an item, or nothing for one
// taken off) and the list's tools out of band.
func (h *handlers) renderItemWithTools(c echo.Context, l ListRow, row templ.Component) error {
	_, ticked, err := h.svc.ListItems(c.Request().Context(), l)
	if err != nil {
		return err
	}
	return web.RenderFragment(c, http.StatusOK, views.ItemAndTools(row, listURL(l.PartitionKey, l.ListID), len(ticked)))
}

// editListItem is GET …/items/:item/edit: the rename form in the item's
// place (htmx), or on a page of its own.
func (h *handlers) editListItem(c echo.Context) error {
	l := openedList(c)
	item, err := h.svc.ListItem(c.Request().Context(), l, c.Param("item"))
	if err != nil {
		return err
	}
	return h.renderItemEdit(c, http.StatusOK, l, item, item.Text, "")
}

func (h *handlers) renderItemEdit(c echo.Context, status int, l ListRow, item ListItemRow, value, errKey string) error {
	_, g := Opened(c)
	e := views.ListItemEdit{Item: h.listItem(c, l, item), Value: value, Error: i18n.T(c.Request().Context(), errKey), Back: listURL(l.PartitionKey, l.ListID)}
	if errKey == "" {
		e.Error = ""
	}
	nav := views.GroupNav{Name: g.GroupName, URL: groupURL(g.GroupID), Current: "lists"}
	return web.Render(c, status, web.Page{Title: l.Name + " · " + g.GroupName, Section: "groups", Content: views.ListItemEditPage(nav, l.Name, e), Fragment: views.ListItemEditRow(e)})
}

// renameListItem is POST …/items/:item/edit.
func (h *handlers) renameListItem(c echo.Context) error {
	ctx := c.Request().Context()
	l := openedList(c)
	text := c.FormValue(ItemTextField)
	item, err := h.svc.RenameListItem(ctx, l, c.Param("item"), text)
	var fe formrule.FieldErrors
	if errors.As(err, &fe) {
		item, err := h.svc.ListItem(ctx, l, c.Param("item"))
		if err != nil {
			return err
		}
		return h.renderItemEdit(c, http.StatusUnprocessableEntity, l, item, text, fe[ItemTextField])
	}
	if err != nil {
		return err
	}
	return h.answerItem(c, l, item)
}

// deleteListItem is POST …/items/:item/delete: at once, as Cozi does (an
// item is quick to add again). htmx takes the item out in place.
func (h *handlers) deleteListItem(c echo.Context) error {
	l := openedList(c)
	if err := h.svc.DeleteListItem(c.Request().Context(), l, c.Param("item")); err != nil {
		return err
	}
	if !web.HTMXFrom(c).Partial {
		return web.Redirect(c, listURL(l.PartitionKey, l.ListID))
	}
	return h.renderItemWithTools(c, l, nil)
}

// clearTicked is POST /groups/:id/lists/:list/clear: every ticked item
// goes; htmx gets the body back.
func (h *handlers) clearTicked(c echo.Context) error {
	l := openedList(c)
	if _, err := h.svc.ClearTicked(c.Request().Context(), l); err != nil {
		return err
	}
	if web.HTMXFrom(c).Partial {
		return h.renderList(c, http.StatusOK, l, views.ListBody{}, l.Name, "")
	}
	return web.FlashRedirect(c, "groups.lists.flash.cleared", listURL(l.PartitionKey, l.ListID))
}
