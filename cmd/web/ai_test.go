package main

import (
	"testing"

	"github.com/harmony/harmony/internal/web/webtest"
)

// With an AI API configured, people see their AI usage on their account
// page; without one (and no past usage), the section is absent.
func TestAIUsageOnTheAccountPageFollowsTheConfiguration(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name string
		env  map[string]string
		want int
	}{
		{"configured", map[string]string{"OPENAI_BASE_URL": "http://127.0.0.1:1/v1", "OPENAI_API_KEY": "sk-test", "OPENAI_MODEL": "m"}, 1},
		{"no key", map[string]string{"OPENAI_BASE_URL": "http://127.0.0.1:1/v1"}, 0},
		{"not configured", nil, 0},
	} {
		t.Run(tt.name, func(t *testing.T) {
			c := webtest.NewClient(t, newTestApp(t, tt.env).Handler())
			signIn(t, c, "anna@example.org")
			if n := c.Get("/account").Doc(t).Find(`[data-testid="account-ai-usage"]`).Length(); n != tt.want {
				t.Errorf("%d AI usage sections, want %d", n, tt.want)
			}
		})
	}
}
