package account

import (
	"context"
	"slices"
	"time"

	"github.com/harmony/harmony/internal/i18n"
	"github.com/harmony/harmony/views/components"
)

// ZoneChoices are the zone pickers' options (the profile's and a
// group's): CommonTimezones, with current first when it is another, each
// as ctx's language names it with its offset at now ("Moscow, UTC+3").
func ZoneChoices(ctx context.Context, current string, now time.Time) []components.Option {
	zones := CommonTimezones
	if current != "" && !slices.Contains(zones, current) {
		zones = append([]string{current}, zones...)
	}
	out := make([]components.Option, len(zones))
	for i, z := range zones {
		out[i] = components.Option{Value: z, Label: i18n.ZoneName(ctx, z, now)}
	}
	return out
}
