package groups

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"

	"github.com/harmony/harmony/internal/i18n"
)

// isolated reports whether text sits alone in an element that isolates
// it from the interface text around it: a <bdi>, or an element with
// dir="auto".
func isolated(doc *goquery.Document, text string) bool {
	found := false
	doc.Find("bdi, [dir=auto]").Each(func(_ int, s *goquery.Selection) {
		if strings.TrimSpace(s.Text()) == text {
			found = true
		}
	})
	return found
}

func TestRosterIsolatesUserText(t *testing.T) {
	row := RosterRow{
		Key: "auth:1", Name: "שרה (owner)", Status: "active", Role: "member",
		ActionURL: "/groups/G/members/U", CanRemove: true,
	}
	cat, err := i18n.New()
	if err != nil {
		t.Fatal(err)
	}
	ctx := i18n.WithLocalizer(context.Background(), cat.For(i18n.EN))
	var b bytes.Buffer
	if err := Roster(RosterProps{GroupName: "משפחה 2", GroupURL: "/groups/G", Rows: []RosterRow{row}, First: true}).Render(ctx, &b); err != nil {
		t.Fatal(err)
	}
	html := b.String()
	doc, err := goquery.NewDocumentFromReader(strings.NewReader(html))
	if err != nil {
		t.Fatal(err)
	}
	if !isolated(doc, row.Name) {
		t.Errorf("the member's name is not isolated: %s", html)
	}
	if !isolated(doc, "משפחה 2") {
		t.Error("the group name in the breadcrumb is not isolated")
	}
	// Inside a sentence (the remove button's label) the name is wrapped
	// in FSI…PDI.
	label := doc.Find(`[data-testid="member-remove"]`).AttrOr("aria-label", "")
	if !strings.Contains(label, "\u2068"+row.Name+"\u2069") {
		t.Errorf("the remove button's label does not isolate the name: %q", label)
	}
}

// TestRosterShowsAnInvitationOnce: an invitation's row, named by its
// address for its owners, shows the address once and whole, with a
// pending badge (not the danger colour), and no member colour.
func TestRosterShowsAnInvitationOnce(t *testing.T) {
	const email = "grandma.smith.with.a.long.address@demo.example"
	row := RosterRow{
		Key: "ref", Name: email, Email: email, Status: "invited", Role: "member", Color: -1,
		ActionURL: "/groups/G/members/ref", CanResend: true, CanCancel: true,
	}
	cat, err := i18n.New()
	if err != nil {
		t.Fatal(err)
	}
	ctx := i18n.WithLocalizer(context.Background(), cat.For(i18n.EN))
	var b bytes.Buffer
	if err := RosterItem(row).Render(ctx, &b); err != nil {
		t.Fatal(err)
	}
	doc, err := goquery.NewDocumentFromReader(&b)
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(doc.Find(".row-main").Text(), email); n != 1 {
		t.Errorf("the address shows %d times", n)
	}
	if name := doc.Find(`[data-testid="member-name"]`); name.HasClass("user-name") || strings.TrimSpace(name.Text()) != email {
		t.Errorf("the address is not the row's whole name: %q", name.AttrOr("class", ""))
	}
	if badge := doc.Find(`[data-testid="status-badge"]`); !badge.HasClass("badge-soon") || badge.HasClass("badge-disabled") {
		t.Errorf("the invitation's badge is %q", badge.AttrOr("class", ""))
	}
	if doc.Find(`[data-testid="member-color"]`).Length() != 0 {
		t.Error("an invitation shows a member colour")
	}
}
