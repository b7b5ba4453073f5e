package groups

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"
)

func (a *groupsApp) mailsTo(email string) int {
	n := 0
	for _, m := range a.invitations() {
		if m.To == email {
			n++
		}
	}
	return n
}

// An owner may send 20 invitations an hour: the 21st gets a clear 429,
// and writes and sends nothing. The hour passes and invitations go again.
func TestInvitationsAreLimitedPerHour(t *testing.T) {
	t.Parallel()
	a := newGroupsApp(t)
	a.svc.UseInviteLimits(DefaultInviteLimits)
	ann := a.signIn(t, "ann@example.com")
	id := createGroup(t, ann, "Smiths")
	for i := 0; i < DefaultInviteLimits.PerHour; i++ {
		if res := invite(t, ann, id, fmt.Sprintf("p%d@example.com", i)); res.StatusCode != http.StatusSeeOther {
			t.Fatalf("invitation %d: %d", i+1, res.StatusCode)
		}
	}
	res := invite(t, ann, id, "one-too-many@example.com")
	if res.StatusCode != http.StatusTooManyRequests || !strings.Contains(res.Doc(t).Find(testID("invite-form")).Text(), "as many invitations") {
		t.Fatalf("invitation past the limit: %d", res.StatusCode)
	}
	if _, err := a.svc.memberRow(ctx, id, "one-too-many@example.com"); err == nil {
		t.Fatal("a refused invitation wrote a member row")
	}
	if n := a.mailsTo("one-too-many@example.com"); n != 0 {
		t.Fatalf("a refused invitation sent %d mails", n)
	}
	a.Clock.Advance(time.Hour)
	if res := invite(t, ann, id, "one-too-many@example.com"); res.StatusCode != http.StatusSeeOther || a.mailsTo("one-too-many@example.com") != 1 {
		t.Fatalf("the next hour: %d", res.StatusCode)
	}
}

// The day's limit holds across hours; refused invitations (a bad address,
// a member already) and resends within the cooldown count nothing, and a
// resend that goes out counts.
func TestInvitationsAreLimitedPerDay(t *testing.T) {
	t.Parallel()
	a := newGroupsApp(t)
	a.svc.UseInviteLimits(InviteLimits{PerHour: 2, PerDay: 3})
	ann := a.signIn(t, "ann@example.com")
	id := createGroup(t, ann, "Smiths")
	for _, bad := range []string{"not an address", "ann@example.com"} {
		if res := invite(t, ann, id, bad); res.StatusCode != http.StatusUnprocessableEntity {
			t.Fatalf("refused invitation %q: %d", bad, res.StatusCode)
		}
	}
	for _, e := range []string{"b@example.com", "c@example.com"} {
		if res := invite(t, ann, id, e); res.StatusCode != http.StatusSeeOther {
			t.Fatalf("invite %s: %d", e, res.StatusCode)
		}
	}
	if res := invite(t, ann, id, "d@example.com"); res.StatusCode != http.StatusTooManyRequests {
		t.Fatalf("third in an hour of two: %d", res.StatusCode)
	}
	a.Clock.Advance(time.Hour)
	resend := "/groups/" + id + "/members/" + a.svc.memberRef(id, a.member(t, id, "b@example.com").RowKey) + "/resend"
	if res := post(t, ann.c, resend, nil); res.StatusCode != http.StatusSeeOther || a.mailsTo("b@example.com") != 2 {
		t.Fatalf("a resend: %d", res.StatusCode)
	}
	if res := invite(t, ann, id, "d@example.com"); res.StatusCode != http.StatusTooManyRequests || a.mailsTo("d@example.com") != 0 {
		t.Fatalf("fourth in a day of three: %d", res.StatusCode)
	}
	a.Clock.Advance(2 * ResendCooldown)
	if res := post(t, ann.c, resend, nil); res.StatusCode != http.StatusTooManyRequests || !strings.Contains(res.Body, "as many invitations") || a.mailsTo("b@example.com") != 2 {
		t.Fatalf("a resend past the day's limit: %d", res.StatusCode)
	}
	// Another owner has their own allowance.
	bob := a.signIn(t, "bob@example.com")
	other := createGroup(t, bob, "Joneses")
	if res := invite(t, bob, other, "d@example.com"); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("another inviter: %d", res.StatusCode)
	}
}
