package events

import (
	"context"
	"fmt"
	"image/color"
	"strings"
	"time"

	"github.com/harmony/harmony/internal/auth"
	"github.com/harmony/harmony/internal/platform"
)

// demoEvents are the demo content's events: days after the seed's day,
// in London, across the categories; the jazz night has two seats and
// fills up, so its page shows a waitlist. The party needs approval:
// everyone in going asks to join, and the organizer approves those in
// approved. Olga co-organizes the Go meetup (coHost). The party asks its
// guests what they bring (demoQuestion, any of its choices), optionally
// anything else (demoNote), and to tick that they are fine with being in
// the photos (demoTick, optional); each answers (demoAnswers).
var demoEvents = []struct {
	title, category, place, description string
	days, hour, hours, capacity         int
	price, coHost                       string
	going, approved                     []string
}{
	{"Jazz night at the Blue Note", "concert", "Blue Note, Soho", "An evening of **live jazz** with the Anna Kovacs trio.\n\n- Doors at 19:30\n- The bar is open all night", 4, 20, 3, 2, "18", "", []string{"anna", "tom", "lily", "boris"}, nil},
	{"Go meetup: generics in practice", "meetup", "Riverside Hall", "Three short talks and pizza. Bring a laptop if you want to follow along.", 8, 18, 3, 40, "", "olga", []string{"masha", "olga"}, nil},
	{"Open-air film festival", "festival", "Hyde Park", "Three nights of films under the stars. Blankets welcome.", 15, 19, 4, 300, "12", "", []string{"lily"}, nil},
	{"Winter regatta", "yachting", "Queen Mary Reservoir", "Dinghy racing for all levels; boats can be hired on the day.", 18, 10, 6, 12, "35", "", []string{"tom"}, nil},
	{"Season's end party", "party", "The Crown, upstairs", "Music, food and dancing until late. The room is small: the organizers approve each guest.", 36, 21, 5, 60, "", "", []string{"lily", "tom", "boris", "masha"}, []string{"lily", "masha"}},
	{"Summer picnic in the park", "festival", "Regent's Park, by the bandstand", "Bring a blanket and something to share; we bring the games.", -12, 12, 4, 40, "", "", []string{"tom", "lily", "boris", "masha"}, nil},
}

// demoRatings are the guests' ratings of the past demo event (the
// picnic), with their words: who, stars, words.
var demoRatings = [][3]string{
	{"tom", "5", "Perfect afternoon, and the games were a hit with the kids."},
	{"lily", "4", ""},
	{"boris", "4", "Отличный пикник! В следующий раз возьму мяч."},
}

// demoQuestion is the party's question for its guests, with its
// choices (guests may choose several), and demoNote its optional one;
// demoTick the one answered by a tick; demoAnswers are the guests'
// answers to the three, their choices one a line (masha leaves the
// second blank, and tom leaves the box unticked).
const (
	demoQuestion = "What will you bring?"
	demoChoices  = "Food\nDrinks\nMusic"
	demoNote     = "Anything we should know?"
	demoTick     = "I'm happy to be in the party's photos"
)

var demoAnswers = map[string][3]string{"lily": {"Music\nDrinks", "A playlist and my speaker", ticked}, "tom": {"Food", "Lemon cake, no nuts in it", ""}, "boris": {"Food", "Пирожки с капустой", ticked}, "masha": {"Drinks", "", ticked}}

// SeedDemo adds the demo events, published, with the cast registered;
// the jazz night is full, two people on its waitlist; of the four asking
// to join the party, two are approved; the picnic is past, and three of
// its guests rated it.
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
			Capacity: fmt.Sprint(d.capacity), Price: d.price, ShowGuests: true, Approval: d.approved != nil,
		}
		if d.coHost != "" {
			in.CoHosts = cast.Person(d.coHost).Email
		}
		if d.price != "" {
			in.Currency = "GBP"
		}
		if d.approved != nil {
			in.Question1, in.Choices1, in.Several1, in.Question2, in.Optional2 = demoQuestion, demoChoices, true, demoNote, true
			in.Question3, in.Tick3, in.Optional3 = demoTick, true, true
		}
		in.Image = demoPicture(d.category)
		e, err := s.createEvent(ctx, organizer.Key, in, zone)
		if err != nil {
			return fmt.Errorf("demo event %q: %w", d.title, err)
		}
		if e, err = s.Publish(ctx, e.RowKey, true); err != nil {
			return err
		}
		for _, local := range d.going {
			p := cast.Person(local)
			answers, _, errs := parseAnswers(e, func(field string) []string {
				switch field {
				case answerField(0):
					return strings.Split(demoAnswers[local][0], "\n")
				case answerField(1):
					return []string{demoAnswers[local][1]}
				}
				return []string{demoAnswers[local][2]}
			})
			if errs != nil {
				return fmt.Errorf("demo answers of %s: %v", local, errs)
			}
			if ended(e, cast.Now) {
				// The past event's guests registered before it ended.
				_, _, err = s.catalog.seats.Register(ctx, e.RowKey, Person{MemberKey: p.Key, Name: p.Name, Email: p.Email, Answers: answers}, 1)
			} else {
				_, err = s.Register(ctx, e, &auth.Identity{MemberKey: p.Key, DisplayName: p.Name}, 1, answers)
			}
			if err != nil {
				return fmt.Errorf("demo registration %s: %w", local, err)
			}
		}
		if ended(e, cast.Now) {
			if _, err := s.catalog.SyncSeats(ctx, e.RowKey); err != nil {
				return err
			}
			for _, r := range demoRatings {
				if err := s.Rate(ctx, e, cast.Person(r[0]).Key, r[1], r[2]); err != nil {
					return fmt.Errorf("demo rating %s: %w", r[0], err)
				}
			}
		}
		for _, local := range d.approved {
			if err := s.Approve(ctx, e, cast.Person(local).Key); err != nil {
				return fmt.Errorf("demo approval %s: %w", local, err)
			}
		}
		if d.title == "Jazz night at the Blue Note" {
			by := &auth.Identity{MemberKey: organizer.Key, DisplayName: organizer.Name}
			if _, err := s.SendUpdate(ctx, e, by, "We have the **two front tables** by the stage: ask for Anna at the door.", false); err != nil {
				return err
			}
		}
	}
	return nil
}

// demoPalettes colour each category's demo picture: the sky from top to
// bottom, and the discs.
var demoPalettes = map[string][3]color.RGBA{
	"concert":  {{0x2b, 0x1a, 0x5e, 255}, {0xc2, 0x3b, 0x7a, 255}, {0xff, 0xc8, 0x57, 255}},
	"meetup":   {{0x0b, 0x4f, 0x6c, 255}, {0x01, 0xba, 0xef, 255}, {0xfb, 0xfb, 0xff, 255}},
	"festival": {{0x1d, 0x35, 0x57, 255}, {0xe6, 0x39, 0x46, 255}, {0xf1, 0xfa, 0xee, 255}},
	"yachting": {{0x03, 0x30, 0x6b, 255}, {0x4c, 0xc9, 0xf0, 255}, {0xff, 0xff, 0xff, 255}},
	"party":    {{0x3a, 0x0c, 0xa3, 255}, {0xf7, 0x25, 0x85, 255}, {0xff, 0xd6, 0x0a, 255}},
}

// demoPicture draws a demo event's picture: a gradient with soft discs,
// in its category's colours.
func demoPicture(category string) []byte {
	const w, h = 1200, 675
	p := demoPalettes[category]
	art := platform.DemoArt{
		Top: p[0], Bottom: p[1], Accent: p[2], Strength: 0.35,
		Discs: [][3]int{{w / 5, h / 3, 140}, {w * 3 / 4, h / 4, 90}, {w * 2 / 3, h * 3 / 4, 180}, {w / 3, h * 4 / 5, 70}},
	}
	return art.PNG(w, h)
}
