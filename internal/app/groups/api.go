package groups

import (
	"errors"
	"net/http"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/harmony/harmony/internal/auth"
	"github.com/harmony/harmony/internal/i18n"
	"github.com/harmony/harmony/internal/web"
)

// apiGroup is one group in GET /api/me/groups.
type apiGroup struct {
	GroupID   string     `json:"groupId"`
	GroupName string     `json:"groupName"`
	Status    Status     `json:"status"`
	InvitedAt *time.Time `json:"invitedAt"`
	JoinedAt  *time.Time `json:"joinedAt"`
}

type apiMyGroups struct {
	Groups []apiGroup `json:"groups"`
	// Next is the cursor for ?cursor= of the next page, "" on the last.
	Next string `json:"next"`
}

// apiPageSize is how many groups one API page holds.
const apiPageSize = 50

// apiMyGroups is GET /api/me/groups (document 004): the session's active
// and invited groups, deleted ones left out. Anonymous callers get a 401
// in JSON; guests get the groups they joined by link. A GET with
// no side effects, so CSRF does not apply.
func (h *handlers) apiMyGroups(c echo.Context) error {
	ctx := c.Request().Context()
	id := auth.From(c)
	if id == nil {
		return web.NewError(http.StatusUnauthorized, i18n.T(ctx, "auth.error.signin_required"), errors.New("groups: anonymous API call"))
	}
	out := apiMyGroups{Groups: []apiGroup{}}
	key := memberRowKey(id) // a guest's UserGroups partition is their memberKey
	cursor, err := web.ReadCursor(c, h.svc.cursors, myGroupsQuery(key))
	if err != nil {
		return err
	}
	page, err := h.svc.MyGroups(ctx, key, cursor, apiPageSize)
	if err != nil {
		return err
	}
	for _, g := range page.Groups {
		out.Groups = append(out.Groups, apiGroup{
			GroupID: g.Group.GroupID, GroupName: g.Group.GroupName,
			Status: g.Status, InvitedAt: g.InvitedAt, JoinedAt: g.JoinedAt,
		})
	}
	out.Next = page.Next
	return c.JSON(http.StatusOK, out)
}
