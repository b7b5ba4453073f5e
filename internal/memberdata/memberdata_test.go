package memberdata_test

import (
	"io"
	"strings"
	"testing"

	"github.com/harmony/harmony/internal/i18n"
	"github.com/harmony/harmony/internal/memberdata"
)

// A forgotten author reads "Deleted member" in the page's language; any
// other keeps the name stored with the content, and no account's key is
// Forgotten.
func TestNameOfAForgottenAuthor(t *testing.T) {
	cat, err := i18n.New()
	if err != nil {
		t.Fatal(err)
	}
	en := i18n.WithLocalizer(t.Context(), cat.For(i18n.EN))
	ru := i18n.WithLocalizer(t.Context(), cat.For(i18n.RU))
	if got := memberdata.Name(en, memberdata.Forgotten, "Anna"); got != "Deleted member" {
		t.Errorf("en: %q", got)
	}
	if got := memberdata.Name(ru, memberdata.Forgotten, ""); got != "Удалённый участник" {
		t.Errorf("ru: %q", got)
	}
	if got := memberdata.Name(en, "auth:01J", "Anna"); got != "Anna" {
		t.Errorf("an account: %q", got)
	}
	for _, k := range []string{"auth:forgotten", "guest:forgotten", ""} {
		if memberdata.IsForgotten(k) {
			t.Errorf("%q is forgotten", k)
		}
	}
}

// order records the names an archive is given, in order.
type order struct{ names []string }

func (o *order) JSON(name string, _ any) error { o.names = append(o.names, name); return nil }

func (o *order) File(name string, _ io.Reader) error { o.names = append(o.names, name); return nil }

// Files writes a module's files into its folder, in the order of their
// names, so an archive's zip lists them the same way each time.
func TestFilesAreWrittenInOrder(t *testing.T) {
	for range 5 {
		o := &order{}
		if err := memberdata.Files(o, "chat", map[string]any{"messages": 1, "blocked": 2, "chats": 3}); err != nil {
			t.Fatal(err)
		}
		if got := strings.Join(o.names, " "); got != "chat/blocked.json chat/chats.json chat/messages.json" {
			t.Fatalf("written: %s", got)
		}
	}
}
