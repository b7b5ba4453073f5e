package memberdata_test

import (
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
