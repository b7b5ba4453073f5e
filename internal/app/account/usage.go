package account

import (
	"context"
	"fmt"
)

// AIUsage is a person's AI usage over the last Days days, as their account
// page shows it.
type AIUsage struct {
	Days int
	UsageCounts
}

// UsageCounts are what AI calls are counted by.
type UsageCounts struct {
	Calls     int64
	TokensIn  int64
	TokensOut int64
	Errors    int64
}

// Add sums o into u.
func (u *UsageCounts) Add(o UsageCounts) {
	u.Calls += o.Calls
	u.TokensIn += o.TokensIn
	u.TokensOut += o.TokensOut
	u.Errors += o.Errors
}

// AIUsageReader reads a person's AI usage by userKey (the admin module's
// usage tables implement it).
type AIUsageReader interface {
	UserAIUsage(ctx context.Context, userKey string) (AIUsage, error)
}

// ShowAIUsage puts the "Your AI usage" section on the profile page:
// always when aiConfigured, otherwise only for people who have some usage
// (from before AI was turned off). Call it while wiring, before serving.
func (s *Service) ShowAIUsage(r AIUsageReader, aiConfigured bool) {
	s.aiUsage, s.aiConfigured = r, aiConfigured
}

// AIUsage returns userKey's usage for the profile page, and whether to show
// it at all.
func (s *Service) AIUsage(ctx context.Context, userKey string) (AIUsage, bool, error) {
	if s.aiUsage == nil || userKey == "" {
		return AIUsage{}, false, nil
	}
	u, err := s.aiUsage.UserAIUsage(ctx, userKey)
	if err != nil {
		return AIUsage{}, false, fmt.Errorf("account: AI usage: %w", err)
	}
	return u, s.aiConfigured || u.Calls > 0, nil
}
