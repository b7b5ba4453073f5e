package people

import (
	"context"
	"fmt"
	"strings"

	"github.com/harmony/harmony/internal/app/account"
	"github.com/harmony/harmony/internal/platform"
)

// demoCards are the demo cast's People cards: gender, age on the demo's
// day, place and about.
var demoCards = map[string]struct {
	gender   string
	age      int
	location string
	bio      string
	// photos is how many People photos they have, drawn from hue.
	photos, hue int
	// at is where they shared they are.
	at account.Point
}{
	"anna":  {"female", 31, "London", "Cellist in a community orchestra. Looking for people to go to concerts with, and to argue about Shostakovich.", 3, 200, account.Point{Lat: 51.51, Lon: -0.13}},
	"tom":   {"male", 34, "London", "Drums, bikes and bad puns. I organise the Thursday jam sessions.", 2, 20, account.Point{Lat: 51.46, Lon: -0.11}},
	"lily":  {"female", 28, "New York", "Jazz vocalist by night, product designer by day. Always up for a gig.", 2, 320, account.Point{Lat: 40.71, Lon: -74.01}},
	"boris": {"male", 35, "Москва", "Играю на гитаре, хожу на все концерты группы. Ищу компанию для поездок на фестивали.", 1, 140, account.Point{Lat: 55.76, Lon: 37.62}},
	"masha": {"female", 26, "Москва", "Фотографирую концерты и людей на них. Люблю джаз и длинные прогулки.", 0, 0, account.Point{Lat: 55.73, Lon: 37.59}},
	"olga":  {"female", 38, "Екатеринбург", "Пою в хоре, веду клуб любителей винила.", 1, 270, account.Point{Lat: 56.84, Lon: 60.61}},
}

// demoAnswers are the questions the cast answers on their cards.
var demoAnswers = map[string]AnswersInput{
	"anna":  {{"simple_pleasures", "Rosin on a new bow, and the first coffee after a long rehearsal."}, {"together", "you will come to a Shostakovich quartet with me, at least once."}},
	"tom":   {{"hobby", "The Thursday jam: bring anything that makes a noise."}, {"never", "a curry after a long ride."}, {"unpopular_opinion", "Drum solos are underrated."}},
	"lily":  {{"song", "“Autumn Leaves”, in three keys."}},
	"boris": {{"best_trip", "«Нашествие» на машине с друзьями: три дня дождя, лучший звук в жизни."}, {"perfect_sunday", "Гитара, чай и никаких будильников."}},
	"olga":  {{"learning", "Петь третьим голосом в хоре и не сбиваться."}},
}

// demoPhoto draws a demo People photo: a soft sunset of two colours
// around hue, with a sun.
func demoPhoto(hue int) []byte {
	const side = 720
	art := platform.DemoArt{
		Top: platform.HSL(hue, 0.55, 0.62), Bottom: platform.HSL(hue+35, 0.6, 0.35), Accent: platform.HSL(hue+180, 0.7, 0.75),
		Discs: [][3]int{{side * 2 / 3, side / 3, 110}}, Strength: 1,
	}
	return art.PNG(side, side)
}

// demoLikes are who likes whom in the demo, with what comment: Anna
// (the demo's sign-in) has likes to answer, one like of her own waiting,
// and a match; Masha's like is of one of Anna's answers, Boris's of her
// second photo ("photo" and its place).
var demoLikes = [][4]string{
	{"boris", "anna", "Видел вас на джазовом вечере — здорово играли!", "photo 2"},
	{"masha", "anna", "", "together"},
	{"anna", "lily", "Your set at the jazz night was wonderful.", ""},
	{"anna", "tom", "", ""},
	{"tom", "anna", "Fancy a jam on Thursday?", ""},
	{"olga", "boris", "", ""},
}

// SeedDemo puts the cast in People, with likes and a match
// (platform.DemoSeeder).
func (s *Service) SeedDemo(ctx context.Context, cast platform.DemoCast) error {
	for _, p := range cast.People {
		local, _, _ := strings.Cut(p.Email, "@")
		c, ok := demoCards[local]
		if !ok {
			continue
		}
		born := cast.Now.AddDate(-c.age, -3, 0).Format("2006-01-02")
		in := account.ProfileInput{DisplayName: p.Name, Timezone: p.Timezone, Gender: c.gender, BirthDate: born, Location: c.location, Bio: c.bio}
		if errs, err := s.accounts.UpdateProfile(ctx, p.Key, in); err != nil || len(errs) > 0 {
			return fmt.Errorf("people: demo profile %s: %v %v", p.Email, err, errs)
		}
		if _, err := s.accounts.SetInPeople(ctx, p.Key, true); err != nil {
			return fmt.Errorf("people: demo %s in People: %w", p.Email, err)
		}
		// Everyone shared where they are and looks anywhere, so cards say
		// how far people are and Discover keeps the whole cast.
		if _, err := s.accounts.SetPoint(ctx, p.Key, &c.at); err != nil {
			return fmt.Errorf("people: demo %s's location: %w", p.Email, err)
		}
		prefs := account.PreferencesInput{AgeRangeMin: "18", AgeRangeMax: "99", MaxDistanceKm: fmt.Sprint(account.MaxDistanceKm), ShowMe: account.ShowEveryone}
		if errs, err := s.accounts.UpdatePreferences(ctx, p.Key, prefs); err != nil || len(errs) > 0 {
			return fmt.Errorf("people: demo %s's preferences: %v %v", p.Email, err, errs)
		}
		if a, ok := demoAnswers[local]; ok {
			if err := s.SetAnswers(ctx, p.Key, a); err != nil {
				return fmt.Errorf("people: demo answers of %s: %w", p.Email, err)
			}
		}
		for i := range c.photos {
			if _, err := s.AddPhoto(ctx, p.Key, demoPhoto(c.hue+i*40)); err != nil {
				return fmt.Errorf("people: demo photo of %s: %w", p.Email, err)
			}
		}
	}
	for _, l := range demoLikes {
		to, about := cast.Person(l[1]).Key, l[3]
		var n int
		if _, err := fmt.Sscanf(about, "photo %d", &n); err == nil {
			photos, err := s.Photos(ctx, to)
			if err != nil || len(photos) < n {
				return fmt.Errorf("people: demo photo %d of %s: %v", n, l[1], err)
			}
			about = photoAbout + photos[n-1].RowKey
		}
		if _, err := s.LikeAbout(ctx, cast.Person(l[0]).Key, to, l[2], about); err != nil {
			return fmt.Errorf("people: demo like %s → %s: %w", l[0], l[1], err)
		}
	}
	return nil
}
