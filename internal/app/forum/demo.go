package forum

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/harmony/harmony/internal/moderation"
	"github.com/harmony/harmony/internal/platform"
	"github.com/harmony/harmony/internal/reminder"
)

// demoSections are the demo's sections, in order, named in English and
// Russian (the Russian-speaking one in Russian only).
var demoSections = []SectionInput{
	{Slug: "announcements", Name: "Announcements", Description: "News from the organisers.", Order: "10",
		RussianName: "Объявления", RussianDescription: "Новости от организаторов."},
	{Slug: "general", Name: "General discussion", Description: "Anything about the community and its events.", Order: "20",
		RussianName: "Общение", RussianDescription: "Всё о сообществе и его событиях."},
	{Slug: "music", Name: "Music & concerts", Description: "What we listen to, and where to hear it live.", Order: "30",
		RussianName: "Музыка и концерты", RussianDescription: "Что мы слушаем и где это услышать вживую."},
	{Slug: "russian", Name: "По-русски", Description: "Обсуждения на русском языке.", Order: "40"},
}

// demoTopics are the demo's topics: section, title, and the posts (who,
// what) in order; hoursAgo is when the first post was written.
var demoTopics = []struct {
	section, title string
	hoursAgo       int
	posts          [][2]string
	pinned, locked bool
}{
	{"announcements", "Welcome to the Harmony forum!", 200, [][2]string{
		{"anna", "Hi everyone! This is the place for longer conversations than the chat.\n\n- Ask questions in **General discussion**\n- Share music in **Music & concerts**\n- Пишите по-русски в разделе **По-русски**\n\nBe kind, and have fun."},
		{"tom", "Great to have this. Thanks Anna!"},
	}, true, false},
	{"announcements", "Forum rules (please read)", 190, [][2]string{
		{"anna", "1. Be respectful.\n2. Stay on topic.\n3. No spam or ads.\n\nModerators may hide posts that break these rules."},
	}, false, true},
	{"general", "Who's going to the jazz night?", 30, [][2]string{
		{"lily", "I just got my ticket. Who else is coming?"},
		{"tom", "Me! I'll grab a table near the stage."},
		{"anna", "Count me in. @Lily shall we meet at the bar at 19:30?"},
		{"lily", "Perfect, see you there 🎷"},
		{"boris", "Я на листе ожидания, надеюсь освободится место!"},
		{"tom", "Selling two spare tickets at twice the price, message me. Today only!"},
	}, false, false},
	{"general", "Ideas for the next meetup", 20, [][2]string{
		{"masha", "What should the next meetup be about? I'd love a talk on testing."},
		{"olga", "Testing with real browsers would be great. Playwright maybe?"},
		{"tom", "+1, and pizza again please."},
	}, false, false},
	{"general", "Best place to park near Riverside Hall?", 8, [][2]string{
		{"tom", "Driving to the meetup next week. Any tips on parking?"},
		{"masha", "There's a car park behind the library, free after 18:00."},
	}, false, false},
	{"music", "Albums of the year so far", 50, [][2]string{
		{"lily", "Mine: *Blue Rooms* by the Anna Kovacs trio. What's yours?"},
		{"anna", "Ha, flattered! I've had Nils Frahm on repeat."},
		{"boris", "Из нового — альбом «Кино» в переиздании, слушаю каждый день."},
	}, false, false},
	{"music", "Open-air film festival soundtrack", 5, [][2]string{
		{"olga", "Does anyone know what music they'll play between films?"},
	}, false, false},
	{"russian", "Кто едет в Лондон в декабре?", 40, [][2]string{
		{"boris", "Планирую поездку в середине декабря. Кто ещё будет?"},
		{"masha", "Я там живу! Покажу хорошие места."},
		{"olga", "Я тоже приеду, давайте встретимся на вечеринке."},
		{"boris", "@Маша спасибо, напишу в чат."},
	}, false, false},
	{"russian", "Посоветуйте книги на английском", 12, [][2]string{
		{"olga", "Хочу подтянуть английский. С чего начать?"},
		{"masha", "Начните с Кадзуо Исигуро, у нас в книжном клубе как раз «Остаток дня»."},
	}, false, false},
}

// demoPoll is the poll one demo topic opens with (several choices,
// closing by itself in a week, its results shown to those who voted),
// and who voted for which options (from
// 0); Anna, the demo's first person, has not voted.
var demoPoll = struct {
	title string
	draft PollDraft
	votes map[string][]int
}{"Ideas for the next meetup", PollDraft{Question: "What should the next meetup be about?",
	Options: "Testing with real browsers\nGo generics in practice\nDatabases on a budget", Multiple: true, Closes: "1w", Show: PollShowVoted},
	map[string][]int{"olga": {0, 1}, "tom": {0}, "lily": {2}, "boris": {1, 2}}}

// SeedDemo adds the demo's sections and topics, with their replies
// spread over the last days, a pinned welcome and locked rules, and a
// reply two members reported.
func (s *Service) SeedDemo(ctx context.Context, cast platform.DemoCast) error {
	for _, in := range demoSections {
		if in.Slug == "general" {
			// Boris moderates General discussion, so he reviews its
			// reports (/review).
			in.Moderators = cast.Person("boris").Email
		}
		if _, err := s.CreateSection(ctx, in); err != nil && !errors.Is(err, ErrSectionExists) {
			return fmt.Errorf("demo section %s: %w", in.Slug, err)
		}
	}
	anna := cast.Person("anna")
	staff := Person{MemberKey: anna.Key, Name: anna.Name, Admin: true}
	ids := map[string]string{}
	for _, t := range demoTopics {
		// The topic's own clock: its posts an hour or two apart.
		at := cast.Now.Add(-time.Duration(t.hoursAgo) * time.Hour)
		demo := *s
		demo.now = func() time.Time { return at }
		demo.people = nil // the cast is new, and not held to a newcomer's limits
		var id string
		var topic TopicRow
		for i, p := range t.posts {
			who := cast.Person(p[0])
			by := Person{MemberKey: who.Key, Name: who.Name, Admin: p[0] == "anna"}
			if i == 0 {
				var poll PollDraft
				if t.title == demoPoll.title {
					poll = demoPoll.draft
				}
				var err error
				if topic, err = demo.CreatePollTopic(ctx, by, t.section, t.title, p[1], poll); err != nil {
					return fmt.Errorf("demo topic %q: %w", t.title, err)
				}
				id = topic.PartitionKey
				ids[t.title] = id
			} else if _, err := demo.Reply(ctx, by, id, p[1]); err != nil {
				return fmt.Errorf("demo reply in %q: %w", t.title, err)
			}
			at = at.Add(time.Duration(40+25*i) * time.Minute)
		}
		if t.title == demoPoll.title {
			for name, choices := range demoPoll.votes {
				who := cast.Person(name)
				if err := demo.Vote(ctx, Person{MemberKey: who.Key, Name: who.Name}, topic, choices...); err != nil {
					return fmt.Errorf("demo vote: %w", err)
				}
			}
		}
		if t.pinned {
			if err := demo.Pin(ctx, staff, id, true, nil); err != nil {
				return err
			}
		}
		if t.locked {
			if err := demo.Lock(ctx, staff, id, true); err != nil {
				return err
			}
		}
		if len(t.posts) > 2 {
			// Those who replied like the opening post.
			for _, p := range t.posts[1:] {
				if p[0] == t.posts[0][0] {
					continue
				}
				who := cast.Person(p[0])
				if err := demo.Like(ctx, Person{MemberKey: who.Key, Name: who.Name}, id, 1, true); err != nil {
					return err
				}
			}
		}
	}
	// Anna keeps Masha's parking tip for the meetup, watches the
	// announcements, and mutes a trip she is not making.
	if id := ids["Best place to park near Riverside Hall?"]; id != "" {
		if err := s.Bookmark(ctx, staff, id, 2, true); err != nil {
			return err
		}
		// Tom, who asked, marks Masha's tip as the answer.
		tom := cast.Person("tom")
		if err := s.Solve(ctx, Person{MemberKey: tom.Key, Name: tom.Name}, id, 2, true); err != nil {
			return err
		}
		// with a reminder the morning before the meetup.
		if london, err := time.LoadLocation("Europe/London"); err == nil {
			at, _ := reminder.Time("tomorrow", cast.Now, london)
			if err := s.Remind(ctx, staff.MemberKey, id, 2, at); err != nil {
				return err
			}
		}
	}
	// Lily and Masha report Tom's resale: the admins and Boris, who
	// moderates General discussion, review it.
	if id := ids["Who's going to the jazz night?"]; id != "" && s.Reports != nil {
		t, p, err := s.Post(ctx, id, 6)
		if err != nil {
			return err
		}
		for _, r := range [][3]string{{"lily", moderation.Spam, "Reselling tickets above their price is against rule 3."}, {"masha", moderation.Spam, ""}} {
			who := cast.Person(r[0])
			report := reportOf(t, p, Person{MemberKey: who.Key, Name: who.Name})
			report.Reason, report.Note = r[1], r[2]
			if err := s.Reports.Report(ctx, report); err != nil {
				return err
			}
		}
	}
	if err := s.SetSectionLevel(ctx, staff.MemberKey, "announcements", Watching); err != nil {
		return err
	}
	if id := ids["Кто едет в Лондон в декабре?"]; id != "" {
		if err := s.SetLevel(ctx, staff.MemberKey, id, Muted); err != nil {
			return err
		}
	}
	return nil
}
