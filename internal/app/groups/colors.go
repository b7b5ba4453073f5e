package groups

import (
	"context"
	"encoding/json"
	"hash/fnv"
	"strconv"
	"strings"

	"github.com/harmony/harmony/internal/storage"
)

// Each member has a colour in their group, as in TimeTree and Cozi:
// one of MemberColors, chosen on the group's settings tab or, until
// then, assigned from their memberKey. Appointments show the colours of
// who takes part. The choices live on the group's row (Colors), which
// every group page reads anyway, and an appointment's index row names
// its first participants (Who), so a calendar costs no extra read.

// MemberColors is how many colours there are (CSS classes c0…c7).
const MemberColors = 8

// maxShownParticipants is how many participants an index row names.
const maxShownParticipants = 4

// colorsOf reads the group's chosen colours.
func colorsOf(g GroupRow) map[string]int {
	m := map[string]int{}
	if g.Colors != "" {
		_ = json.Unmarshal([]byte(g.Colors), &m) // a bad value is no choice
	}
	return m
}

// ColorOf is memberKey's colour in g: chosen, or assigned.
func ColorOf(g GroupRow, memberKey string) int {
	if c, ok := colorsOf(g)[memberKey]; ok && c >= 0 && c < MemberColors {
		return c
	}
	h := fnv.New32a()
	h.Write([]byte(memberKey))
	return int(h.Sum32() % MemberColors)
}

// whoColors are the colours of the participants an index row names.
func whoColors(g GroupRow, row AppointmentIndexRow) []int {
	if row.Who == "" {
		return nil
	}
	var out []int
	for _, k := range strings.Split(row.Who, ",") {
		out = append(out, ColorOf(g, k))
	}
	return out
}

// SetColor sets the member's own colour in the group: one conditional
// update of the group's row. A colour outside MemberColors is a field
// error and writes nothing.
func (s *Service) SetColor(ctx context.Context, m Membership, memberKey, value string) error {
	c, err := strconv.Atoi(value)
	if err != nil || c < 0 || c >= MemberColors {
		return FieldErrors{"color": "groups.color.error"}
	}
	pk, rk := groupKey(m.GroupID)
	_, err = storage.Change(ctx, s.groups, pk, rk, ErrNoGroup, func(g *GroupRow) error {
		if g.IsDeleted {
			return ErrNoGroup
		}
		colors := colorsOf(*g)
		if cur, ok := colors[memberKey]; ok && cur == c {
			return storage.ErrNoChange
		}
		colors[memberKey] = c
		b, err := json.Marshal(colors)
		if err != nil {
			return err
		}
		g.Colors, g.UpdatedAt = string(b), s.now().UTC()
		return nil
	})
	return err
}
