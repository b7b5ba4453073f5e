package main

import (
	"log/slog"
	"time"

	"github.com/harmony/harmony/internal/ai"
	"github.com/harmony/harmony/internal/app/account"
	"github.com/harmony/harmony/internal/app/admin"
	"github.com/harmony/harmony/internal/app/groups"
	"github.com/harmony/harmony/internal/config"
)

// wireAI gives the groups module "Read the scan" when an OpenAI-compatible
// API is configured, counting every call in the admin module's usage
// tables, and shows people their usage on the account page.
func wireAI(cfg config.OpenAI, log *slog.Logger, now func() time.Time, adminModule *admin.Service, accounts *account.Service, groupsModule *groups.Service) {
	extractor := ai.New(cfg, adminModule.Usage(), log, now)
	if extractor != nil {
		// Only when configured: a nil *ai.Extractor in the interface would
		// offer a button that cannot work.
		groupsModule.UseExtractor(extractor)
		log.Info("AI scan reading is on", "model", extractor.Model())
	}
	accounts.ShowAIUsage(adminModule.Usage(), extractor != nil)
}
