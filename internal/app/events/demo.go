package events

import (
	"context"
	"fmt"
	"time"

	"github.com/harmony/harmony/internal/auth"
	"github.com/harmony/harmony/internal/platform"
)

// demoEvents are the demo content's events: days after the seed's day,
// in London, across the categories; the jazz night has two seats and
// fills up, so its page shows a waitlist.
var demoEvents = []struct {
	title, category, place, description string
	days, hour, hours, capacity         int
	price                               string
	going                               []string
}{
	{"Jazz night at the Blue Note", "concert", "Blue Note, Soho", "An evening of **live jazz** with the Anna Kovacs trio.\n\n- Doors at 19:30\n- The bar is open all night", 4, 20, 3, 2, "18", []string{"anna", "tom", "lily", "boris"}},
	{"Go meetup: generics in practice", "meetup", "Riverside Hall", "Three short talks and pizza. Bring a laptop if you want to follow along.", 8, 18, 3, 40, "", []string{"masha", "olga"}},
	{"Open-air film festival", "festival", "Hyde Park", "Three nights of films under the stars. Blankets welcome.", 15, 19, 4, 300, "12", []string{"lily"}},
	{"Winter regatta", "yachting", "Queen Mary Reservoir", "Dinghy racing for all levels; boats can be hired on the day.", 18, 10, 6, 12, "35", []string{"tom"}},
	{"New Year's party", "party", "The Crown, upstairs", "Music, food, and the countdown together.", 36, 21, 5, 60, "", nil},
}

// SeedDemo adds the demo events, published, with the cast registered;
// the jazz night is full, two people on its waitlist.
func (s *Service) SeedDemo(ctx context.Context, cast platform.DemoCast) error {
	zone, err := time.LoadLocation("Europe/London")
	if err != nil {
		return err
	}
	organizer := cast.Person("anna")
	day := cast.Now.In(zone)
	for _, d := range demoEvents {
		start := time.Date(day.Year(), day.Month(), day.Day()+d.days, d.hour, 0, 0, 0, zone)
		in := EventInput{
			Title: d.title, Category: d.category, Place: d.place, Description: d.description,
			Start: start.Format("2006-01-02T15:04"), End: start.Add(time.Duration(d.hours) * time.Hour).Format("2006-01-02T15:04"),
			Capacity: fmt.Sprint(d.capacity), Price: d.price,
		}
		if d.price != "" {
			in.Currency = "GBP"
		}
		e, err := s.catalog.Create(ctx, organizer.Key, in, zone)
		if err != nil {
			return fmt.Errorf("demo event %q: %w", d.title, err)
		}
		if e, err = s.Publish(ctx, e.RowKey, true); err != nil {
			return err
		}
		for _, local := range d.going {
			p := cast.Person(local)
			if _, err := s.Register(ctx, e, &auth.Identity{MemberKey: p.Key, DisplayName: p.Name}, 1); err != nil {
				return fmt.Errorf("demo registration %s: %w", local, err)
			}
		}
	}
	return nil
}
