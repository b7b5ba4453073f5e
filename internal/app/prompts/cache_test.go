package prompts

import (
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"testing"

	"github.com/harmony/harmony/internal/storage"
)

// "web seed prompts" run beside a live instance moves the catalog's first
// month back. The live instance follows within firstMonthTTL: it then
// accepts a page link another instance made for an older month, and its
// own walk reaches every prompt, with no restart.
func TestCatalogCacheFollowsAnotherInstance(t *testing.T) {
	t.Parallel()
	a := newPromptsApp(t)
	u := a.signIn(t, "ann@example.com")
	a.mustCreate(t, u.key, Input{Title: "Fresh prompt", Text: "Say {{x}}.", Tags: []string{"writing"}, Visibility: string(Public)})
	if res := u.c.Get("/prompts"); res.StatusCode != http.StatusOK {
		t.Fatalf("catalog: %d", res.StatusCode)
	}

	other := New(a.Store, a.Accounts, a.Cursors, slog.New(slog.NewTextHandler(io.Discard, nil)), a.Clock.Now)
	if _, err := other.SeedSynthetic(ctx, 300, SyntheticOptions{Seed: 9}); err != nil {
		t.Fatal(err)
	}
	var cursor *storage.Cursor
	token, want := "", 0
	for {
		page, err := other.List(ctx, Listing{}, cursor)
		if err != nil {
			t.Fatal(err)
		}
		want += len(page.Items)
		if page.Next == "" {
			break
		}
		token = page.Next
		c, err := a.Cursors.Decode(Listing{}.Normalize().CursorQuery(), token)
		if err != nil {
			t.Fatal(err)
		}
		cursor = &c
	}

	a.Clock.Advance(firstMonthTTL)
	if res := u.c.Get("/prompts?cursor=" + url.QueryEscape(token)); res.StatusCode != http.StatusOK {
		t.Fatalf("the other instance's last page link: %d", res.StatusCode)
	}
	got, next := 0, "/prompts"
	for next != "" {
		res := u.c.Get(next)
		if res.StatusCode != http.StatusOK {
			t.Fatalf("%s: %d", next, res.StatusCode)
		}
		doc := res.Doc(t)
		got += len(cardIDs(doc))
		next, _ = doc.Find(`a[data-testid="load-more"]`).Attr("href")
	}
	if got != want {
		t.Fatalf("this instance lists %d prompts, the other %d", got, want)
	}
}
