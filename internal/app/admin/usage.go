package admin

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/harmony/harmony/internal/app/account"
	"github.com/harmony/harmony/internal/metrics"
	"github.com/harmony/harmony/internal/storage"
)

// The AI usage tables (document 004): per person per day, per person per
// day per model, and per model per day for everyone.
const (
	userUsageTable      = "UserDailyUsage"
	userModelUsageTable = "UserDailyUsageByModel"
	modelUsageTable     = "DailyUsageByModel"
)

// UserUsageRow is one person's AI usage on one UTC day (UserDailyUsage).
type UserUsageRow struct {
	PartitionKey string    `table:"PartitionKey"` // userKey
	RowKey       string    `table:"RowKey"`       // YYYY-MM-DD
	ETag         string    `table:"ETag"`
	Calls        int64     `table:"openaiCalls"`
	TokensIn     int64     `table:"openaiTokensIn"`
	TokensOut    int64     `table:"openaiTokensOut"`
	Errors       int64     `table:"openaiErrors"`
	UpdatedAt    time.Time `table:"updatedAt"`
}

// ModelUsageRow is one model's usage on one UTC day, for one person
// (UserDailyUsageByModel) or for everyone (DailyUsageByModel).
type ModelUsageRow struct {
	PartitionKey string    `table:"PartitionKey"`
	RowKey       string    `table:"RowKey"`
	ETag         string    `table:"ETag"`
	Calls        int64     `table:"calls"`
	TokensIn     int64     `table:"tokensIn"`
	TokensOut    int64     `table:"tokensOut"`
	Errors       int64     `table:"errors"`
	UpdatedAt    time.Time `table:"updatedAt"`
}

// userUsageKey is UserDailyUsage's key: PK the userKey, RK the UTC day.
func userUsageKey(userKey string, at time.Time) (pk, rk string) {
	return userKey, at.UTC().Format(time.DateOnly)
}

// userModelUsageKey is UserDailyUsageByModel's key: PK "{userKey}|{day}",
// RK the escaped model name (model names may hold '/').
func userModelUsageKey(userKey, model string, at time.Time) (pk, rk string) {
	return userKey + "|" + at.UTC().Format(time.DateOnly), storage.EscapeKey(model)
}

// modelUsageKey is DailyUsageByModel's key: PK the UTC month, RK
// "{day}|{escaped model}", so a month's days are one range query.
func modelUsageKey(model string, at time.Time) (pk, rk string) {
	at = at.UTC()
	return at.Format("2006-01"), at.Format(time.DateOnly) + "|" + storage.EscapeKey(model)
}

// modelOfUsageKey is the model name in a DailyUsageByModel row key.
func modelOfUsageKey(rk string) (string, error) {
	if len(rk) <= len(time.DateOnly)+1 || rk[len(time.DateOnly)] != '|' {
		return "", fmt.Errorf("%w: usage row key %q", storage.ErrInvalidKey, rk)
	}
	return storage.UnescapeKey(rk[len(time.DateOnly)+1:])
}

// ErrUsageEvent refuses an event without a person or a model.
var ErrUsageEvent = errors.New("admin: usage event needs a userKey and a model")

// Usage keeps the AI usage tables. The AI client records every call; the
// account page and the metrics page read them.
type Usage struct {
	users      *storage.Table
	userModels *storage.Table
	models     *storage.Table
	now        func() time.Time
}

// NewUsage builds the usage counters on store; now is the clock.
func NewUsage(store *storage.Store, now func() time.Time) *Usage {
	return &Usage{
		users:      store.Table(userUsageTable),
		userModels: store.Table(userModelUsageTable),
		models:     store.Table(modelUsageTable),
		now:        now,
	}
}

// UsageTables are the usage tables, for provisioning.
var UsageTables = []string{userUsageTable, userModelUsageTable, modelUsageTable}

// Record counts one call in the three usage tables: three counter rows,
// each updated under its ETag (see addCounts), so concurrent calls add up
// exactly. It tries every table even when one fails, and joins the errors.
func (u *Usage) Record(ctx context.Context, ev metrics.UsageEvent) error {
	if ev.UserKey == "" || ev.Model == "" {
		return ErrUsageEvent
	}
	var failed int64
	if ev.Failed {
		failed = 1
	}
	in, out := max(ev.TokensIn, 0), max(ev.TokensOut, 0)
	pk, rk := userUsageKey(ev.UserKey, ev.At)
	errUser := metrics.AddCounts(ctx, u.users, pk, rk, map[string]int64{
		"openaiCalls": 1, "openaiTokensIn": in, "openaiTokensOut": out, "openaiErrors": failed,
	}, u.now)
	counts := map[string]int64{"calls": 1, "tokensIn": in, "tokensOut": out, "errors": failed}
	pk, rk = userModelUsageKey(ev.UserKey, ev.Model, ev.At)
	errUserModel := metrics.AddCounts(ctx, u.userModels, pk, rk, counts, u.now)
	pk, rk = modelUsageKey(ev.Model, ev.At)
	errModel := metrics.AddCounts(ctx, u.models, pk, rk, counts, u.now)
	if err := errors.Join(errUser, errUserModel, errModel); err != nil {
		return fmt.Errorf("admin: record AI usage: %w", err)
	}
	return nil
}

// UserAIUsage sums userKey's usage over the metrics page's last days (one
// range query on the person's partition), for their account page.
func (u *Usage) UserAIUsage(ctx context.Context, userKey string) (account.AIUsage, error) {
	total := account.AIUsage{Days: metricsDays}
	first, today := metrics.DayWindow(u.now(), metricsDays)
	pk, from := userUsageKey(userKey, first)
	_, to := userUsageKey(userKey, today.AddDate(0, 0, 1))
	err := u.users.QueryAll(ctx, storage.Query{PartitionKey: pk, RowKeyFrom: from, RowKeyTo: to}, func(e storage.Entity) error {
		var r UserUsageRow
		if err := storage.Unmarshal(e, &r); err != nil {
			return err
		}
		total.Add(account.UsageCounts{Calls: r.Calls, TokensIn: r.TokensIn, TokensOut: r.TokensOut, Errors: r.Errors})
		return nil
	})
	if err != nil {
		return account.AIUsage{}, err
	}
	return total, nil
}

// ModelUsage is one model's totals over a span of days.
type ModelUsage struct {
	Model string
	account.UsageCounts
}

// ByModel sums DailyUsageByModel over the last days UTC days per model,
// most called first. It runs one range query per month partition.
func (u *Usage) ByModel(ctx context.Context, days int) ([]ModelUsage, error) {
	if days < 1 {
		return nil, nil
	}
	first, today := metrics.DayWindow(u.now(), days)
	sums := map[string]*ModelUsage{}
	err := metrics.QueryMonthDays(ctx, u.models, first, today, func(e storage.Entity) error {
		var r ModelUsageRow
		if err := storage.Unmarshal(e, &r); err != nil {
			return err
		}
		model, err := modelOfUsageKey(r.RowKey)
		if err != nil {
			return err
		}
		m := sums[model]
		if m == nil {
			m = &ModelUsage{Model: model}
			sums[model] = m
		}
		m.Add(account.UsageCounts{Calls: r.Calls, TokensIn: r.TokensIn, TokensOut: r.TokensOut, Errors: r.Errors})
		return nil
	})
	if err != nil {
		return nil, err
	}
	out := make([]ModelUsage, 0, len(sums))
	for _, m := range sums {
		out = append(out, *m)
	}
	slices.SortFunc(out, func(a, b ModelUsage) int {
		return cmp.Or(cmp.Compare(b.Calls, a.Calls), cmp.Compare(a.Model, b.Model))
	})
	return out, nil
}
