package groups

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"hash/fnv"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/harmony/harmony/internal/memberdata"
	"github.com/harmony/harmony/internal/storage"
)

// Each member has a colour in their group, as in TimeTree and Cozi:
// one of MemberColors, chosen on the group's settings tab or, until
// then, given to them. Appointments show the colours of who takes part.
// Both live on the group's row (Colors, the choices, and Assigned, the
// colours given), which every group page reads anyway, and an
// appointment's index row names its first participants (Who), so a
// calendar costs no extra read. What is given is worked out when
// someone joins or leaves or chooses (refreshColors), from the roster:
// a colour nobody chose and nobody else has, so up to MemberColors
// members never share one.

// MemberColors is how many colours there are (CSS classes c0…c7).
const MemberColors = 8

// maxShownParticipants is how many participants an index row names.
const maxShownParticipants = 4

// palette is a group's colours: chosen by members, and given to the
// others (refreshColors).
type palette struct {
	chosen, assigned map[string]int
}

// paletteOf reads the group's colours; a bad value is no colour.
func paletteOf(g GroupRow) palette {
	return palette{chosen: colorMap(g.Colors), assigned: colorMap(g.Assigned)}
}

func colorMap(s string) map[string]int {
	m := map[string]int{}
	if s != "" {
		_ = json.Unmarshal([]byte(s), &m) // a bad value is no colour
	}
	maps.DeleteFunc(m, func(_ string, c int) bool { return c < 0 || c >= MemberColors })
	return m
}

// of is memberKey's colour: chosen, given, or, for someone given none
// (past MemberColors members, or gone before colours were given), one
// that follows from their memberKey; -1, none, for memberdata.Forgotten.
func (p palette) of(memberKey string) int {
	if memberdata.IsForgotten(memberKey) {
		return -1 // nobody's: no colour
	}
	if c, ok := p.chosen[memberKey]; ok {
		return c
	}
	if c, ok := p.assigned[memberKey]; ok {
		return c
	}
	h := fnv.New32a()
	h.Write([]byte(memberKey))
	return int(h.Sum32() % MemberColors)
}

// who are the colours of the participants an index row names.
func (p palette) who(row AppointmentIndexRow) []int {
	if row.Who == "" {
		return nil
	}
	var out []int
	for _, k := range strings.Split(row.Who, ",") {
		out = append(out, p.of(k))
	}
	return out
}

// ColorOf is memberKey's colour in g: chosen, or given.
func ColorOf(g GroupRow, memberKey string) int { return paletteOf(g).of(memberKey) }

// assignColors gives each active member who chose no colour one that
// no active member chose and nobody else was given: the one they had
// while it stays free, else the first free one, in the order they
// joined (then by memberKey). When none is free the rest get none and
// repeat colours (palette.of). Colours stay put as people come and go.
func assignColors(chosen, had map[string]int, members []MemberRow) map[string]int {
	slices.SortFunc(members, func(a, b MemberRow) int {
		return cmp.Or(joinedAt(a).Compare(joinedAt(b)), cmp.Compare(memberKeyOf(a), memberKeyOf(b)))
	})
	var taken [MemberColors]bool
	var open []string
	for _, m := range members {
		if c, ok := chosen[memberKeyOf(m)]; ok {
			taken[c] = true
		}
	}
	out := map[string]int{}
	for _, m := range members {
		key := memberKeyOf(m)
		if _, ok := chosen[key]; ok {
			continue
		}
		if c, ok := had[key]; ok && !taken[c] {
			out[key], taken[c] = c, true
			continue
		}
		open = append(open, key)
	}
	for _, key := range open {
		c := slices.Index(taken[:], false)
		if c < 0 {
			break
		}
		out[key], taken[c] = c, true
	}
	return out
}

// joinedAt orders members by when they joined; a row without the date
// comes last.
func joinedAt(m MemberRow) time.Time {
	if m.JoinedAt == nil {
		return time.Date(9999, 1, 1, 0, 0, 0, 0, time.UTC)
	}
	return *m.JoinedAt
}

// giveColors sets g.Assigned from the group's active members, read
// here: the caller runs it inside g's conditional update, so a member
// who joins meanwhile is counted by one of the two writes.
// storage.ErrNoChange says nothing changed.
func (s *Service) giveColors(ctx context.Context, g *GroupRow) error {
	members, err := s.ActiveMembers(ctx, g.GroupID)
	if err != nil {
		return err
	}
	p := paletteOf(*g)
	given := assignColors(p.chosen, p.assigned, members)
	if maps.Equal(given, p.assigned) {
		return storage.ErrNoChange
	}
	b, err := json.Marshal(given)
	if err != nil {
		return err
	}
	g.Assigned = string(b)
	return nil
}

// refreshColors gives colours anew after someone joined, left or moved
// to another key: one query of the roster and a conditional update of
// the group's row when something changed. The membership is saved
// already, so a failure is logged, not returned; until the next change
// or `web reindex groups` the member's colour follows from their key.
func (s *Service) refreshColors(ctx context.Context, groupID string) {
	s.refreshGroup(ctx, groupID, "groups: member colours not given", s.giveColors)
}

// refreshGroup recomputes what a group's row keeps of its other rows
// (its colours, its summary) with f, inside the row's conditional
// update, so a value computed before a concurrent change is computed
// again, not lost; a deleted group is left alone. What changed is saved
// already, so a failure is logged as warn, not returned: the next change
// or web reindex groups brings the row up to it.
func (s *Service) refreshGroup(ctx context.Context, groupID, warn string, f func(ctx context.Context, g *GroupRow) error) {
	pk, rk := groupKey(groupID)
	_, err := storage.Change(ctx, s.groups, pk, rk, storage.ErrNoChange, func(g *GroupRow) error {
		if g.IsDeleted {
			return storage.ErrNoChange
		}
		return f(ctx, g)
	})
	if err != nil {
		s.log.WarnContext(ctx, warn, "group", groupID, "err", err)
	}
}

// SetColor sets the member's own colour in the group: one conditional
// update of the group's row, which gives another colour to whoever had
// it without choosing it. A colour outside MemberColors is a field
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
		colors := colorMap(g.Colors)
		if cur, ok := colors[memberKey]; ok && cur == c {
			return storage.ErrNoChange
		}
		colors[memberKey] = c
		b, err := json.Marshal(colors)
		if err != nil {
			return err
		}
		g.Colors, g.UpdatedAt = string(b), s.now().UTC()
		if err := s.giveColors(ctx, g); !errors.Is(err, storage.ErrNoChange) {
			return err
		}
		return nil
	})
	return err
}

// firstColor is a new group's Assigned: its owner has the first colour.
func firstColor(ownerKey string) string {
	b, _ := json.Marshal(map[string]int{ownerKey: 0}) // a map of strings marshals
	return string(b)
}
