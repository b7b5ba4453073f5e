package blog

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/harmony/harmony/internal/auth"
	"github.com/harmony/harmony/internal/media/pictures"
	"github.com/harmony/harmony/internal/platform"
)

// demoPosts are the demo blog: English and Russian posts over the last
// weeks, one scheduled for next week and one draft. days is when each
// is published, in days from the seed's day (ahead: scheduled).
var demoPosts = []struct {
	title, summary, body, tags string
	days, hue                  int
	draft                      bool
	// picture, when not "", is the alt text of a picture in the text.
	picture string
}{
	{
		"Spring tour: twelve cities, one van", "The dates are out. Here is how we planned the route, and how to get tickets before they go.",
		"We spent the winter with a map, a spreadsheet and far too much coffee. The result: **twelve cities in five weeks**, starting in London and ending in Moscow.\n\n## How we chose the cities\n\nWe asked you. More than 900 of you answered the survey in the forum, and the route follows your votes:\n\n1. London and Manchester open the tour.\n2. Berlin, Prague and Warsaw follow.\n3. We close with three nights in Moscow.\n\n> The best part of touring is meeting the people who have been listening all along.\n\n## Tickets\n\nMembers get a 48-hour head start. Watch the [events page](/events) for each city's date.",
		"tour, news", -2, 260, false, "The van, packed for the first leg",
	},
	{
		"Новый альбом: как мы записывали «Ночной город»", "Три месяца в студии, сорок дублей одной песни и скрипка, которую мы одолжили у соседей.",
		"Мы закончили запись! Рассказываем, как всё было.\n\n## Студия\n\nПисались в маленькой студии под Петербургом. Барабаны записали за два дня, а вот на вокал ушло больше месяца.\n\n- 11 песен\n- 3 месяца работы\n- 40 дублей «Ночного города»\n\n## Что дальше\n\nАльбом выйдет весной, а первые песни мы сыграем на весеннем туре. Пишите в [форуме](/forum), какую хотите услышать первой.",
		"альбом, студия", -6, 210, false, "",
	},
	{
		"Five things we learned running the community meetups", "A year of monthly meetups: what worked, what did not, and what changes next.",
		"A year ago we held the first meetup in the back room of a pub. Forty people came. Here is what a year taught us.\n\n### 1. Start on time\nPeople plan around you. We now open the doors at 7 and start at 7:15, always.\n\n### 2. Name tags work\nEven for people who have met before.\n\n### 3. Two short talks beat one long one\nTwenty minutes each, with questions in between.\n\n### 4. Keep a waitlist\nRooms fill up; the waitlist on the events page now offers freed seats for a few hours.\n\n### 5. Ask for feedback the same night\nMemories fade by morning.",
		"meetups, community, news", -13, 150, false, "",
	},
	{
		"Фотоотчёт с летнего фестиваля", "Лучшие кадры трёх дней у озера: сцена, палатки и рассвет после хедлайнера.",
		"Маша снимала все три дня, и вот что получилось. Спасибо всем, кто приехал!\n\nОсобенно запомнился рассвет после выступления хедлайнера: человек двести так и остались сидеть на траве у сцены.\n\nПолный альбом — в нашем чате «Фестиваль».",
		"фестиваль, фото", -21, 30, false, "",
	},
	{
		"Behind the scenes: a day with the sound crew", "Who are the people at the desk in the middle of the hall, and what do they do all night?",
		"Every concert has a second band you never see: the sound crew. We followed them for a day, from the 9 am load-in to the last cable coiled at 2 am.\n\nThey check every microphone twice, and they carry a spare of everything, **including a spare desk**.",
		"backstage, tour, news", -34, 330, false, "",
	},
	{
		"Merch restock and a new T-shirt", "The tour T-shirt is back in every size, with a new design for the spring.",
		"The winter T-shirt sold out in a week. It is back, in every size from XS to 3XL, and joined by a spring design drawn by one of you: the winner of the forum's design contest.",
		"merch, news", 6, 100, false, "",
	},
	{
		"Draft: the year in numbers", "",
		"Concerts played, kilometres driven, cups of tea: the numbers are still being counted.",
		"news", 0, 0, true, "",
	},
}

// SeedDemo writes the demo blog as Anna, the demo's admin, with Boris
// and Tom following it (platform.DemoSeeder).
func (s *Service) SeedDemo(ctx context.Context, cast platform.DemoCast) error {
	for _, local := range []string{"boris", "tom"} {
		if err := s.Follow(ctx, cast.Person(local).Key, true); err != nil {
			return fmt.Errorf("blog: demo follower: %w", err)
		}
	}
	anna := cast.Person("anna")
	author := Person{Key: anna.Key, Name: anna.Name}
	for _, d := range demoPosts {
		in := Input{Title: d.title, Summary: d.summary, Body: d.body, Tags: d.tags, Action: "publish"}
		if d.draft {
			in.Action = "draft"
		} else {
			in.PublishAt = cast.Now.UTC().AddDate(0, 0, d.days).Add(-time.Hour).Format("2006-01-02T15:04")
			in.Cover = platform.DemoArt{
				Top: platform.HSL(d.hue, 0.55, 0.3), Bottom: platform.HSL(d.hue+40, 0.65, 0.6), Accent: platform.HSL(d.hue+160, 0.7, 0.8),
				Discs: [][3]int{{960, 180, 120}, {260, 520, 200}, {720, 620, 90}}, Strength: 0.4,
			}.PNG(1280, 720)
		}
		p, err := s.Create(ctx, author, in, time.UTC)
		if err != nil {
			return fmt.Errorf("blog: demo post %q: %w", d.title, err)
		}
		if d.picture != "" {
			if err := s.demoPicture(ctx, p, in, d.hue, d.picture); err != nil {
				return fmt.Errorf("blog: demo picture of %q: %w", d.title, err)
			}
		}
		written := map[string]CommentRow{}
		for _, c := range demoComments {
			if c.title != d.title {
				continue
			}
			who := cast.Person(c.who)
			id := &auth.Identity{MemberKey: who.Key, DisplayName: who.Name}
			var row CommentRow
			if c.to == "" {
				row, err = s.AddComment(ctx, p, id, c.body)
			} else {
				row, err = s.ReplyComment(ctx, p, written[c.to].RowKey, id, c.body)
			}
			if err != nil {
				return fmt.Errorf("blog: demo comment on %q: %w", d.title, err)
			}
			written[c.who] = row
		}
	}
	return nil
}

// demoComments are readers' comments on the demo's posts, oldest first:
// the post's title, who wrote it, what, and for a reply whose comment
// on the post it answers.
var demoComments = []struct{ title, who, body, to string }{
	{"Spring tour: twelve cities, one van", "lily", "Manchester on a Friday, perfect. Already counting the days!", ""},
	{"Spring tour: twelve cities, one van", "boris", "Ждём вас в Москве! Три вечера подряд — это **праздник**.", ""},
	{"Spring tour: twelve cities, one van", "tom", "Any chance of a second London date? The one in March will sell out in minutes.", ""},
	{"Spring tour: twelve cities, one van", "anna", "We are asking the venue now. Follow the blog and you will hear first.", "tom"},
	{"Spring tour: twelve cities, one van", "lily", "Seconding this, a Saturday would be perfect.", "tom"},
}

// demoPicture adds a picture to p's text, as its editor would: uploaded
// to the post, its line put after the first paragraph.
func (s *Service) demoPicture(ctx context.Context, p PostRow, in Input, hue int, alt string) error {
	art := platform.DemoArt{
		Top: platform.HSL(hue+180, 0.5, 0.35), Bottom: platform.HSL(hue+220, 0.6, 0.65), Accent: platform.HSL(hue+30, 0.8, 0.8),
		Discs: [][3]int{{300, 200, 150}, {900, 500, 220}}, Strength: 0.5,
	}
	p, err := s.AddPicture(ctx, p, art.PNG(1280, 720))
	if err != nil {
		return err
	}
	list := p.PictureList()
	first, rest, _ := strings.Cut(in.Body, "\n\n")
	in.Body = first + "\n\n![" + alt + "](" + pictures.URL(mediaPrefix, list[len(list)-1], false) + ")\n\n" + rest
	in.Cover = nil
	_, err = s.Update(ctx, p, in, time.UTC)
	return err
}
