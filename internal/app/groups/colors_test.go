package groups

import (
	"fmt"
	"hash/fnv"
	"maps"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/harmony/harmony/internal/storage"
)

// TestAssignColors: members who chose no colour are given one nobody
// chose and nobody else has, in the order they joined, keep it while
// it stays free, and past the palette get none.
func TestAssignColors(t *testing.T) {
	t.Parallel()
	day := time.Date(2030, 5, 1, 0, 0, 0, 0, time.UTC)
	// members are active rows named a, b, c…, joined a day apart in that
	// order.
	members := func(keys ...string) []MemberRow {
		var out []MemberRow
		for i, k := range keys {
			out = append(out, MemberRow{MemberKey: "auth:" + k, Status: StatusActive, JoinedAt: timePtr(day.AddDate(0, 0, i))})
		}
		slices.Reverse(out) // the roster's order is not the join order
		return out
	}
	keyed := func(m map[string]int) map[string]int {
		out := map[string]int{}
		for k, c := range m {
			out["auth:"+k] = c
		}
		return out
	}
	for _, tc := range []struct {
		name        string
		members     []MemberRow
		chosen, had map[string]int
		want        map[string]int
	}{
		{"in join order", members("z", "y", "x"), nil, nil, map[string]int{"z": 0, "y": 1, "x": 2}},
		{"around chosen colours", members("a", "b", "c"), map[string]int{"a": 1, "c": 0}, nil, map[string]int{"b": 2}},
		{"a colour chosen by someone gone is free", members("a", "b"), map[string]int{"gone": 0}, nil, map[string]int{"a": 0, "b": 1}},
		{"kept while free", members("a", "b", "c"), nil, map[string]int{"b": 5, "gone": 0}, map[string]int{"a": 0, "b": 5, "c": 1}},
		{"given up when chosen by another", members("a", "b", "c"), map[string]int{"c": 0}, map[string]int{"a": 0, "b": 1}, map[string]int{"a": 2, "b": 1}},
		{"past the palette none", members("a", "b", "c", "d", "e", "f", "g", "h", "i"), nil, nil,
			map[string]int{"a": 0, "b": 1, "c": 2, "d": 3, "e": 4, "f": 5, "g": 6, "h": 7}},
	} {
		got := assignColors(keyed(tc.chosen), keyed(tc.had), tc.members)
		if want := keyed(tc.want); !maps.Equal(got, want) {
			t.Errorf("%s: %v, want %v", tc.name, got, want)
		}
	}
}

// hashColor is the colour a memberKey had before colours were given.
func hashColor(memberKey string) int {
	h := fnv.New32a()
	h.Write([]byte(memberKey))
	return int(h.Sum32() % MemberColors)
}

var colorClass = regexp.MustCompile(`\bc([0-7])\b`)

// TestMembersOfAGroupHaveTheirOwnColours: in a group whose members'
// keys would give two of them the same colour, each member has a colour
// of their own, and every page that shows it agrees: the month, the
// agenda, the appointment page, the roster and the settings' picker. A
// chosen colour is given to nobody else, colours stay when someone
// leaves, and the month costs no more with more members.
func TestMembersOfAGroupHaveTheirOwnColours(t *testing.T) {
	t.Parallel()
	a := newGroupsApp(t)
	ann := a.signIn(t, "ann@example.com")
	id := createGroup(t, ann, "Smiths")
	month := "/groups/" + id + "/appointments/month?m=2030-06"
	small := ann.c.Get(month).StorageOps(t)
	people := []person{ann}
	// Members join until two of their keys hash to one colour (at most
	// 8: among 9 keys two always do).
	collide := func() bool {
		seen := map[int]bool{}
		for _, p := range people {
			if seen[hashColor(p.id.MemberKey)] {
				return true
			}
			seen[hashColor(p.id.MemberKey)] = true
		}
		return false
	}
	join := func(email string) person {
		invite(t, ann, id, email)
		p := a.signIn(t, email)
		if res := post(t, p.c, "/groups/"+id+"/invite/accept", nil); res.StatusCode != http.StatusSeeOther {
			t.Fatalf("%s accepts: %d", email, res.StatusCode)
		}
		return p
	}
	for i := 1; !collide() && len(people) < MemberColors; i++ {
		people = append(people, join(fmt.Sprintf("p%d@example.com", i)))
	}
	t.Logf("%d members; their keys' colours collide: %v", len(people), collide())

	// Each one picks up an appointment of their own on a day of June.
	appts := map[string]string{}
	for i, p := range people {
		day := fmt.Sprintf("2030-06-%02d", i+3)
		appts[p.id.MemberKey] = createAppointment(t, ann, id, url.Values{"title": {"Turn " + strconv.Itoa(i)},
			"start": {day + "T10:00"}, "end": {day + "T11:00"}, "responsible": {p.id.MemberKey}})
	}
	// colours reads each member's colour from every page that shows it,
	// and fails unless the pages agree.
	colours := func() map[string]int {
		t.Helper()
		chips := ann.c.Get(month).Doc(t)
		agenda := ann.c.Get("/groups/" + id).Doc(t) // from the test clock, 17 May 2030
		roster := ann.c.Get("/groups/" + id + "/members").Doc(t)
		out := map[string]int{}
		for _, p := range people {
			settings := p.c.Get("/groups/" + id + "/settings").Doc(t)
			mine, err := strconv.Atoi(settings.Find(`input[name="color"][checked]`).AttrOr("value", ""))
			if err != nil {
				t.Fatalf("%s's settings check no colour", p.id.Email)
			}
			appt := appts[p.id.MemberKey]
			seen := map[string]string{
				"month":  chips.Find(`[data-appointment="`+appt+`"] a`).AttrOr("class", ""),
				"agenda": agenda.Find(`[data-appointment="`+appt+`"]`).AttrOr("class", ""),
				"page":   ann.c.Get("/groups/"+id+"/appointments/"+appt).Doc(t).Find(testID("participant")+" .member-dot").AttrOr("class", ""),
				"roster": roster.Find(`[data-member="`+a.svc.memberRef(id, p.id.UserKey)+`"] `+testID("member-color")).AttrOr("class", ""),
			}
			for where, class := range seen {
				m := colorClass.FindStringSubmatch(class)
				if m == nil || m[1] != strconv.Itoa(mine) {
					t.Fatalf("%s: %s shows %q, the settings c%d", p.id.Email, where, class, mine)
				}
			}
			out[p.id.MemberKey] = mine
		}
		return out
	}
	distinct := func(byKey map[string]int) bool {
		seen := map[int]bool{}
		for _, c := range byKey {
			if seen[c] {
				return false
			}
			seen[c] = true
		}
		return true
	}
	before := colours()
	if !distinct(before) {
		t.Fatalf("members share colours: %v", before)
	}

	// The last to join chooses the colour the first was given: the first
	// is given another, which nobody else has.
	last, first := people[len(people)-1], people[0]
	if res := post(t, last.c, "/groups/"+id+"/color", url.Values{"color": {strconv.Itoa(before[first.id.MemberKey])}}); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("choose a colour: %d", res.StatusCode)
	}
	chose := colours()
	if !distinct(chose) || chose[last.id.MemberKey] != before[first.id.MemberKey] {
		t.Fatalf("after %s chose c%d: %v", last.id.Email, before[first.id.MemberKey], chose)
	}

	// Someone leaves: the others keep their colours, and the next to join
	// is given one nobody has.
	gone := people[1]
	if res := post(t, gone.c, "/groups/"+id+"/leave", nil); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("leave: %d", res.StatusCode)
	}
	people = slices.Delete(people, 1, 2)
	delete(appts, gone.id.MemberKey)
	newcomer := join("new@example.com")
	people = append(people, newcomer)
	day := "2030-06-28"
	appts[newcomer.id.MemberKey] = createAppointment(t, ann, id, url.Values{"title": {"Newcomer"},
		"start": {day + "T10:00"}, "end": {day + "T11:00"}, "responsible": {newcomer.id.MemberKey}})
	after := colours()
	for key, c := range after {
		if key != newcomer.id.MemberKey && chose[key] != c {
			t.Errorf("%s changed colour from c%d to c%d when someone left", key, chose[key], c)
		}
	}
	if !distinct(after) {
		t.Fatalf("after a leave and a join: %v", after)
	}

	// Colours cost the calendar no read: a month of many members costs
	// what one of its owner alone did (the month holds one appointment
	// per member, which the month's own test shows costs nothing more).
	if big := ann.c.Get(month).StorageOps(t); big["total"] != small["total"] || big["queries"] != small["queries"] {
		t.Fatalf("the month costs %v with %d members, %v with one", big, len(people), small)
	}
}

// TestRebuildGivesColours: a group from before colours were given gets
// them from `web reindex groups`.
func TestRebuildGivesColours(t *testing.T) {
	t.Parallel()
	a := newGroupsApp(t)
	ann, bob, id := joinedPair(t, a)
	g, err := a.svc.group(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	g.Assigned = ""
	if _, err := storage.Update(ctx, a.svc.groups, g, g.ETag); err != nil {
		t.Fatal(err)
	}
	if _, err := a.svc.Rebuild(ctx); err != nil {
		t.Fatal(err)
	}
	g, _ = a.svc.group(ctx, id)
	if got, want := paletteOf(g).assigned, map[string]int{ann.id.MemberKey: 0, bob.id.MemberKey: 1}; !maps.Equal(got, want) {
		t.Fatalf("after the rebuild: %v, want %v", got, want)
	}
}

// TestGuestsAreGivenColours: someone who joins by link is given a
// colour of their own, and keeps it as an account when they sign in.
func TestGuestsAreGivenColours(t *testing.T) {
	t.Parallel()
	a := newGroupsApp(t)
	olga := a.signIn(t, "olga@example.com")
	id := createGroup(t, olga, "Picnic")
	gus := a.joinAsGuest(t, id, openJoin(t, olga, id), "Gus")
	g, _ := a.svc.group(ctx, id)
	if got, want := paletteOf(g).assigned, map[string]int{olga.id.MemberKey: 0, gus.id.MemberKey: 1}; !maps.Equal(got, want) {
		t.Fatalf("after the guest joined: %v, want %v", got, want)
	}
	account := a.SignIn(gus.c, "gus@example.com")
	g, _ = a.svc.group(ctx, id)
	if got, want := paletteOf(g).assigned, map[string]int{olga.id.MemberKey: 0, account: 1}; !maps.Equal(got, want) {
		t.Fatalf("after the guest signed in: %v, want %v", got, want)
	}
}
