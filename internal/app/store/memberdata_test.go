package store_test

import (
	"errors"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/harmony/harmony/internal/memberdata/memberdatatest"
)

// TestDeletingAnAccountInTheStore: a member's archive holds the items
// they asked to hear of and nobody else's asking; their deletion, cut
// short after one alert, is finished by the next run, and then nothing
// in the store's tables names them, another's alert stays (and the
// restock tells that one), and one more run changes nothing.
func TestDeletingAnAccountInTheStore(t *testing.T) {
	t.Parallel()
	faults := &memberdatatest.Faults{}
	a := newAppOn(t, faults.Wrap)
	vinyl := a.add(t, form("title", "Vinyl", "category", "music", "stock", "0"))
	poster := a.add(t, form("title", "Tour poster", "stock", "0"))
	a.add(t, form("title", "Cap", "stock", "0"))
	for _, item := range []string{vinyl, poster} {
		if res := a.mia.PostForm(item+"/alert", a.mia.WithCSRF(item, url.Values{"on": {"true"}})); res.StatusCode != http.StatusSeeOther {
			t.Fatalf("mia asks: %d", res.StatusCode)
		}
	}
	if res := a.leo.PostForm(vinyl+"/alert", a.leo.WithCSRF(vinyl, url.Values{"on": {"true"}})); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("leo asks: %d", res.StatusCode)
	}
	mia, leo := memberdatatest.Member(a.Who(a.mia), "mia@example.com"), memberdatatest.Member(a.Who(a.leo), "leo@example.com")

	arch := &memberdatatest.Archive{}
	if err := a.svc.ExportMember(t.Context(), mia, arch); err != nil {
		t.Fatal(err)
	}
	text := arch.Text()
	if !strings.Contains(text, "store/alerts.json") || !strings.Contains(text, "Vinyl") || !strings.Contains(text, "Tour poster") || strings.Contains(text, "Cap") || strings.Contains(text, leo.Key) {
		t.Errorf("mia's archive:\n%s", text)
	}

	faults.FailAfter(1)
	if err := a.svc.ForgetMember(t.Context(), mia); !errors.Is(err, memberdatatest.ErrInjected) {
		t.Fatalf("a forget cut short: %v", err)
	}
	faults.Heal()
	if len(memberdatatest.Traces(t, a.Store, mia, a.svc.Tables()...)) != 1 {
		t.Fatalf("after the run cut short: %v", memberdatatest.Traces(t, a.Store, mia, a.svc.Tables()...))
	}
	if err := a.svc.ForgetMember(t.Context(), mia); err != nil {
		t.Fatal(err)
	}
	if left := memberdatatest.Traces(t, a.Store, mia, a.svc.Tables()...); len(left) > 0 {
		t.Fatalf("rows still naming mia: %v", left)
	}
	if len(memberdatatest.Traces(t, a.Store, leo, a.svc.Tables()...)) != 1 {
		t.Error("leo's alert went with mia's")
	}
	before := memberdatatest.Snapshot(t, a.Store, a.svc.Tables()...)
	if err := a.svc.ForgetMember(t.Context(), mia); err != nil {
		t.Fatal(err)
	}
	if after := memberdatatest.Snapshot(t, a.Store, a.svc.Tables()...); after != before {
		t.Errorf("a second forget wrote:\n%s\n→\n%s", before, after)
	}
	if res := a.send(vinyl+"/edit", form("title", "Vinyl", "category", "music", "stock", "10"), nil); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("restock: %d", res.StatusCode)
	}
	if items := a.Inbox(a.leo); !strings.Contains(items.Text(), "Back in the store: Vinyl") {
		t.Errorf("leo's inbox: %q", items.Text())
	}
}
