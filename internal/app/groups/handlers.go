package groups

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"slices"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/harmony/harmony/internal/app/account"
	"github.com/harmony/harmony/internal/auth"
	"github.com/harmony/harmony/internal/i18n"
	"github.com/harmony/harmony/internal/web"
	"github.com/harmony/harmony/views/components"
	views "github.com/harmony/harmony/views/groups"
)

// groupURL is a group's page.
func groupURL(groupID string) string { return "/groups/" + url.PathEscape(groupID) }

// formatDate is a day in the reader's language ("2 June 2030").
func formatDate(ctx context.Context, t *time.Time) string {
	if t == nil {
		return ""
	}
	return i18n.Date(ctx, t.UTC())
}

// Home serves "/" to a signed-in person: their dashboard (a guest's
// lists the groups they joined by link). Visitors get the marketing page.
func (s *Service) Home(c echo.Context, marketing echo.HandlerFunc) error {
	if id := auth.From(c); id == nil {
		return marketing(c)
	}
	return (&handlers{svc: s}).dashboard(c)
}

// groupsIndex is GET /groups: the dashboard for accounts and guests;
// visitors, whom the navigation also sends here, get an introduction
// with a way to sign in.
func (h *handlers) groupsIndex(c echo.Context) error {
	if id := auth.From(c); id == nil {
		return web.Render(c, http.StatusOK, web.Page{
			Title:   i18n.T(c.Request().Context(), "module.groups.name"),
			Section: "groups",
			Content: views.Intro(auth.SignInPath("/groups")),
		})
	}
	return h.dashboard(c)
}

// dashboard is GET / (signed in) and GET /groups[?cursor=…]: the groups
// the person is active in or invited to.
func (h *handlers) dashboard(c echo.Context) error {
	ctx := c.Request().Context()
	id := auth.From(c)
	// A guest's UserGroups partition is their memberKey (guests.go).
	key := memberRowKey(id)
	cursor, err := web.ReadCursor(c, h.svc.cursors, myGroupsQuery(key))
	if err != nil {
		return err
	}
	page, err := h.svc.MyGroups(ctx, key, cursor, 0)
	if err != nil {
		return err
	}
	// One bounded range query per group shown; times in the viewer's zone,
	// which the session carries.
	upcoming, err := h.svc.NextAppointments(ctx, page.Groups, dashboardAppointments)
	if err != nil {
		return err
	}
	zone := h.svc.Zone(ctx, id)
	cards := make([]views.GroupCard, 0, len(page.Groups))
	for _, g := range page.Groups {
		card := groupCard(ctx, g)
		pal := paletteOf(g.Group)
		for _, r := range upcoming[g.Group.GroupID] {
			card.Upcoming = append(card.Upcoming, appointmentItem(ctx, r, g.Group, pal, zone))
		}
		cards = append(cards, card)
	}
	aside, err := web.HomeCards(c)
	if err != nil {
		return err
	}
	next := web.NextURL("/groups", page.Next)
	return web.Render(c, http.StatusOK, web.Page{
		Title:    i18n.T(ctx, "groups.dashboard.heading"),
		Section:  "groups",
		Content:  views.Dashboard(views.DashboardProps{Groups: cards, NextURL: next, First: cursor == nil, Aside: aside, SignInToCreate: signInToCreate(id)}),
		Fragment: views.GroupsChunk(cards, next),
	})
}

// signInToCreate is where a guest's "New group" goes: signing in, then
// the form ("" for an account, whose button opens the form).
func signInToCreate(id *auth.Identity) string {
	if id.Guest {
		return auth.SignInPath("/groups/new")
	}
	return ""
}

func groupCard(ctx context.Context, g MyGroup) views.GroupCard {
	u := groupURL(g.Group.GroupID)
	card := views.GroupCard{
		ID: g.Group.GroupID, Name: g.Group.GroupName, Href: u,
		Invited:    g.Status == StatusInvited,
		Date:       formatDate(ctx, g.JoinedAt),
		AcceptURL:  u + "/invite/accept",
		DeclineURL: u + "/invite/decline",
	}
	if card.Invited {
		card.Date = formatDate(ctx, g.InvitedAt)
	}
	return card
}

// newGroup is GET /groups/new.
func (h *handlers) newGroup(c echo.Context) error {
	return renderNewGroup(c, http.StatusOK, views.NewGroupProps{})
}

func renderNewGroup(c echo.Context, status int, p views.NewGroupProps) error {
	return web.Render(c, status, web.Page{
		Title:   i18n.T(c.Request().Context(), "groups.new.heading"),
		Section: "groups",
		Content: views.NewGroup(p),
	})
}

// create is POST /groups.
func (h *handlers) create(c echo.Context) error {
	name := c.FormValue("name")
	g, err := h.svc.Create(c.Request().Context(), auth.From(c), name)
	if errors.Is(err, ErrName) {
		return renderNewGroup(c, http.StatusUnprocessableEntity, views.NewGroupProps{Name: name, Error: nameErrorKey(err, "groups.error.name")})
	}
	if err != nil {
		return err
	}
	// A new group's first step is inviting people: its settings tab.
	return web.FlashRedirect(c, "groups.flash.created", groupURL(g.GroupID)+"/settings")
}

// setTimezone is POST /groups/:id/timezone (owners).
func (h *handlers) setTimezone(c echo.Context) error {
	ctx := c.Request().Context()
	m, g := Opened(c)
	_, err := h.svc.SetTimezone(ctx, m, c.FormValue("timezone"))
	return web.AnswerAction(c, err, "groups.timezone.error", "groups.timezone.flash", groupURL(g.GroupID)+"/settings")
}

// setColor is POST /groups/:id/color: the member's own colour.
func (h *handlers) setColor(c echo.Context) error {
	ctx := c.Request().Context()
	m, g := Opened(c)
	err := h.svc.SetColor(ctx, m, auth.From(c).MemberKey, c.FormValue("color"))
	return web.AnswerAction(c, err, "groups.color.error", "groups.color.flash", groupURL(g.GroupID)+"/settings")
}

// settingsPage is GET /groups/:id/settings: owners invite, open join
// links, rename and delete; everyone may leave.
func (h *handlers) settingsPage(c echo.Context) error {
	m, g := Opened(c)
	return h.renderGroup(c, http.StatusOK, views.GroupProps{RenameValue: g.GroupName}, m, g)
}

func (h *handlers) renderGroup(c echo.Context, status int, p views.GroupProps, m Membership, g GroupRow) error {
	p.ID, p.Name, p.URL, p.Owner = g.GroupID, g.GroupName, groupURL(g.GroupID), m.Owner()
	sole, err := h.svc.SoleOwner(c.Request().Context(), m)
	if err != nil {
		return err
	}
	p.SoleOwner = sole
	p.MyColor = ColorOf(g, auth.From(c).MemberKey)
	ctx := c.Request().Context()
	p.Timezone, p.TimezoneName = g.Timezone, i18n.ZoneName(ctx, g.Timezone, h.svc.now())
	if p.Owner {
		p.Timezones = account.ZoneChoices(ctx, g.Timezone, h.svc.now())
	}
	// The feed's URL is a secret of the group's accounts, each member's
	// their own: a guest who came by a public link does not get one.
	p.ShowFeed = !auth.From(c).Guest
	if g.CalendarToken != "" && p.ShowFeed {
		p.FeedURL = h.svc.CalendarURL(g, m)
	}
	if m.Owner() {
		p.TokenURL = p.URL + "/calendar/token"
	}
	links, err := h.svc.OpenJoinSessions(c.Request().Context(), m)
	if err != nil {
		return err
	}
	for _, l := range links {
		p.OpenLinks = append(p.OpenLinks, views.OpenLink{
			Href: joinSessionURL(g.GroupID, l.RowKey), Meta: l.Meta,
			Until: i18n.DateTime(c.Request().Context(), l.ExpiresAt.In(auth.From(c).Location())),
		})
	}
	return web.Render(c, status, web.Page{Title: g.GroupName, Section: "groups", Content: views.Group(p)})
}

// rename is POST /groups/:id/rename (owners).
func (h *handlers) rename(c echo.Context) error {
	ctx := c.Request().Context()
	m, g := Opened(c)
	name := c.FormValue("name")
	_, err := h.svc.Rename(ctx, m, name)
	if errors.Is(err, ErrName) {
		return h.renderGroup(c, http.StatusUnprocessableEntity, views.GroupProps{RenameValue: name, RenameError: nameErrorKey(err, "groups.error.name")}, m, g)
	}
	if err != nil {
		return err
	}
	return web.FlashRedirect(c, "groups.flash.renamed", groupURL(g.GroupID)+"/settings")
}

// deleteGroup is POST /groups/:id/delete (owners): a soft delete.
func (h *handlers) deleteGroup(c echo.Context) error {
	ctx := c.Request().Context()
	id := auth.From(c)
	m, g := Opened(c)
	if !web.Confirmed(c) {
		return web.AskConfirm(c, views.DeleteGroupConfirm(ctx, groupURL(g.GroupID), g.GroupName))
	}
	if err := h.svc.Delete(ctx, m, id); err != nil {
		return err
	}
	return web.FlashRedirect(c, "groups.flash.deleted", "/groups")
}

// leave is POST /groups/:id/leave.
func (h *handlers) leave(c echo.Context) error {
	ctx := c.Request().Context()
	m, _ := Opened(c)
	if err := h.svc.Leave(ctx, m); err != nil {
		return err
	}
	return web.FlashRedirect(c, "groups.flash.left", "/groups")
}

// invite is POST /groups/:id/invites (owners).
func (h *handlers) invite(c echo.Context) error {
	ctx := c.Request().Context()
	id := auth.From(c)
	m, g := Opened(c)
	email := c.FormValue("email")
	_, err := h.svc.Invite(ctx, m, g, id, email)
	if status, msg, ok := web.Refused(ctx, err); ok {
		p := views.GroupProps{RenameValue: g.GroupName, InviteEmail: email, InviteError: msg}
		return h.renderGroup(c, status, p, m, g)
	} else if err != nil {
		return err
	}
	return web.FlashRedirect(c, "groups.flash.invited", groupURL(g.GroupID)+"/members")
}

// invitePage is GET /groups/:id/invite, the link in the mail. Only the
// invited address's account sees the group; anyone else is told the
// link is not for them, whether or not the group exists.
func (h *handlers) invitePage(c echo.Context) error {
	m, g := Opened(c)
	u := groupURL(g.GroupID)
	if m.Row.Status == StatusActive {
		return web.Redirect(c, u)
	}
	return web.Render(c, http.StatusOK, web.Page{
		Title:   g.GroupName,
		Section: "groups",
		Content: views.Invite(views.InviteProps{GroupName: g.GroupName, AcceptURL: u + "/invite/accept", DeclineURL: u + "/invite/decline"}),
	})
}

// accept is POST /groups/:id/invite/accept: htmx gets the active card, a
// form goes to the group.
func (h *handlers) accept(c echo.Context) error {
	ctx := c.Request().Context()
	id := auth.From(c)
	m, g := Opened(c)
	row, err := h.svc.Accept(ctx, m, id)
	if err != nil {
		return err
	}
	if web.HTMXFrom(c).Partial {
		card := groupCard(c.Request().Context(), MyGroup{Group: g, Status: row.Status, InvitedAt: row.InvitedAt, JoinedAt: row.JoinedAt})
		return web.RenderFragment(c, http.StatusOK, views.GroupCardItem(card))
	}
	return web.FlashRedirect(c, "groups.flash.joined", groupURL(g.GroupID))
}

// decline is POST /groups/:id/invite/decline.
func (h *handlers) decline(c echo.Context) error {
	ctx := c.Request().Context()
	id := auth.From(c)
	m, g := Opened(c)
	if err := h.svc.Decline(ctx, m, id); err != nil {
		return err
	}
	if web.HTMXFrom(c).Partial {
		return web.RenderFragment(c, http.StatusOK, views.DeclinedCard(g.GroupName))
	}
	return web.FlashRedirect(c, "groups.flash.declined", "/groups")
}

// roster is GET /groups/:id/members[?cursor=…].
func (h *handlers) roster(c echo.Context) error {
	ctx := c.Request().Context()
	m, g := Opened(c)
	cursor, err := web.ReadCursor(c, h.svc.cursors, rosterQuery(g.GroupID))
	if err != nil {
		return err
	}
	page, err := h.svc.Roster(ctx, m, cursor)
	if err != nil {
		return err
	}
	open, err := h.openLinks(ctx, m, page.Entries)
	if err != nil {
		return err
	}
	u := groupURL(g.GroupID)
	pal := paletteOf(g)
	rows := make([]views.RosterRow, 0, len(page.Entries))
	for _, e := range page.Entries {
		row := rosterRow(c, e, m, u, h.svc.memberRef(g.GroupID, e.Row.RowKey))
		if key := memberKeyOf(e.Row); e.Row.Status == StatusActive && key != "" {
			row.Color = pal.of(key)
		}
		if row.CanRemove && open[e.Row.JoinedVia] {
			row.RemoveChoice = linkChoice(ctx, e.Row.JoinedVia)
		}
		rows = append(rows, row)
	}
	next := web.NextURL(u+"/members", page.Next)
	return web.Render(c, http.StatusOK, web.Page{
		Title:   i18n.T(ctx, "groups.roster.heading"),
		Section: "groups",
		Content: views.Roster(views.RosterProps{
			GroupName: g.GroupName, GroupURL: u,
			Rows: rows, NextURL: next, First: cursor == nil,
		}),
		Fragment: views.RosterChunk(rows, next),
	})
}

// rosterRow shows one entry to the viewer m: emails and actions are for
// owners only (never for members or guests). ref is the row's memberRef,
// the only identifier of it the page shows.
func rosterRow(c echo.Context, e RosterEntry, viewer Membership, groupURL, ref string) views.RosterRow {
	r := e.Row
	owner := viewer.Owner()
	self := r.RowKey == viewer.Row.RowKey
	name := e.DisplayName
	if name == "" {
		name = i18n.T(c.Request().Context(), "groups.roster.invitee")
		if owner {
			name = r.Email
		}
	}
	row := views.RosterRow{
		Key:       ref,
		Name:      name,
		AvatarURL: account.AvatarURL(r.MemberKey, e.PhotoKey),
		Status:    r.Status,
		Role:      r.Role,
		Self:      self,
		ActionURL: groupURL + "/members/" + url.PathEscape(ref),
		Color:     -1,
	}
	// Another active account can be messaged privately.
	if r.Status == StatusActive && !self && auth.IsAuthMemberKey(r.MemberKey) {
		row.MessageKey = r.MemberKey
	}
	if r.Status == StatusActive {
		row.ProfileURL = auth.ProfileURL(r.MemberKey)
	}
	switch r.Status {
	case StatusActive:
		row.Date = formatDate(c.Request().Context(), r.JoinedAt)
	case StatusInvited:
		row.Date = formatDate(c.Request().Context(), r.InvitedAt)
	case StatusRemoved:
		row.Date = formatDate(c.Request().Context(), r.RemovedAt)
	}
	if owner {
		row.Email = r.Email
		row.CanPromote = r.Status == StatusActive && r.Role != RoleOwner && !auth.IsGuestKey(r.RowKey)
		row.CanDemote = r.Status == StatusActive && r.Role == RoleOwner && !self
		row.CanRemove = r.Status == StatusActive && !self
		row.CanResend = r.Status == StatusInvited
		row.CanCancel = r.Status == StatusInvited
	}
	return row
}

// closeLinkChoice is the removal step's offer to close the join link row
// came in by, while it still admits people: a guest who joined by it
// could otherwise join again by it as a new guest (a removal holds only
// for the account it removed). nil when there is no such link.
func (h *handlers) closeLinkChoice(ctx context.Context, m Membership, row MemberRow) (*components.ConfirmChoice, error) {
	if row.JoinedVia == "" {
		return nil, nil
	}
	link, err := h.svc.JoinSession(ctx, m, row.JoinedVia)
	if errors.Is(err, ErrNoGroup) || err == nil && !link.Usable(h.svc.now()) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return linkChoice(ctx, link.RowKey), nil
}

// linkChoice asks whether to close join link sessionID with a removal.
func linkChoice(ctx context.Context, sessionID string) *components.ConfirmChoice {
	return &components.ConfirmChoice{Name: "link", Legend: i18n.T(ctx, "groups.confirm.remove_link"), Options: [][2]string{
		{sessionID, i18n.T(ctx, "groups.confirm.remove_link_close")},
		{"", i18n.T(ctx, "groups.confirm.remove_link_keep")},
	}}
}

// openLinks are the group's join links that still admit people, for an
// owner's roster page where someone came by one (the removal step asks
// of it): one query then, none otherwise.
func (h *handlers) openLinks(ctx context.Context, m Membership, entries []RosterEntry) (map[string]bool, error) {
	if !m.Owner() || !slices.ContainsFunc(entries, func(e RosterEntry) bool { return e.Row.JoinedVia != "" }) {
		return nil, nil
	}
	links, err := h.svc.OpenJoinSessions(ctx, m)
	open := make(map[string]bool, len(links))
	for _, l := range links {
		open[l.RowKey] = true
	}
	return open, err
}

// memberAction is POST /groups/:id/members/:user/{promote,remove,resend,
// cancel} (owners). Both htmx and forms return to the roster. Removing
// someone who came by a join link that is still open offers to close it
// (closeLinkChoice).
func (h *handlers) memberAction(action string) echo.HandlerFunc {
	return func(c echo.Context) error {
		ctx := c.Request().Context()
		id := auth.From(c)
		m, g := Opened(c)
		target, err := h.svc.memberKeyOfRef(g.GroupID, c.Param("user"))
		if err != nil {
			return web.NotFound(err)
		}
		if action != "resend" && !web.Confirmed(c) {
			row, err := h.svc.memberRow(ctx, g.GroupID, target)
			if err != nil {
				return err
			}
			name := row.DisplayName
			if name == "" {
				name = row.Email // only owners act here
			}
			p := views.MemberConfirm(ctx, name, "", action, "member-"+action, action == "remove" || action == "cancel")
			if action == "remove" {
				if p.Choice, err = h.closeLinkChoice(ctx, m, row); err != nil {
					return err
				}
			}
			return web.AskConfirm(c, p)
		}
		switch action {
		case "demote":
			err = h.svc.Demote(ctx, m, target)
		case "promote":
			err = h.svc.Promote(ctx, m, target)
		case "remove":
			err = h.svc.Remove(ctx, m, target)
			if link := c.FormValue("link"); err == nil && link != "" {
				err = h.svc.CloseJoinSession(ctx, m, link)
			}
		case "resend":
			err = h.svc.Resend(ctx, m, g, id, target)
		case "cancel":
			err = h.svc.Cancel(ctx, m, target)
		}
		if err != nil {
			return err
		}
		return web.FlashRedirect(c, "groups.flash."+action, groupURL(g.GroupID)+"/members")
	}
}
