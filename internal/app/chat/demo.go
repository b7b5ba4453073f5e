package chat

import (
	"context"
	"errors"
	"fmt"
	"image/color"
	"strings"
	"time"

	"github.com/harmony/harmony/internal/app/groups"
	"github.com/harmony/harmony/internal/auth"
	"github.com/harmony/harmony/internal/moderation"
	"github.com/harmony/harmony/internal/platform"
	"github.com/harmony/harmony/internal/reminder"
)

// demoLines are the demo's conversations: who says what, in order.
var demoLines = map[string][][2]string{
	"room-general": {
		{"anna", "Welcome to **#general**! Introduce yourselves 👋"},
		{"tom", "Hi all, Tom here. Mostly here for the events."},
		{"boris", "Привет! Борис, из Москвы. Рад всех видеть."},
		{"lily", "Hello from New York! Is anyone going to the jazz night?"},
		{"anna", "I am, and Tom too. @Lily you should come!"},
	},
	"room-random": {
		{"masha", "Кто-нибудь знает хорошую кофейню рядом с Hyde Park?"},
		{"tom", "The one on Serpentine Road does a great flat white."},
		{"olga", "Спасибо, Том! Запишу."},
	},
	"room-book-club": {
		{"lily", "This month: *The Remains of the Day*. Who's in?"},
		{"masha", "Я! Читаю в переводе, обсудим в четверг?"},
		{"lily", "Thursday works. Bring your favourite quote."},
	},
	"room-organisers": {
		{"anna", "Jazz night is full: shall we ask the venue for ten more seats?"},
		{"boris", "Давай. I can call them tomorrow morning."},
	},
	"group": {
		{"anna", "Don't forget Lily's birthday 🎂 It's on the calendar."},
		{"tom", "Cake is ordered. I'll pick it up at 10."},
		{"anna", "Perfect, thanks!"},
	},
	"event": {
		{"anna", "Doors open at 19:30: let's meet at the bar."},
		{"tom", "See you there. I'll grab a table near the stage."},
	},
	"private": {
		{"anna", "Hi Boris! Are you coming to London next month?"},
		{"boris", "Да, планирую! Will let you know the dates."},
	},
}

// demoReplies are demo lines that reply to an earlier line of their
// chat: chat, then line → the line it answers (from 0).
var demoReplies = map[string]map[int]int{
	"room-general":    {4: 3},
	"room-random":     {1: 0},
	"room-organisers": {1: 0},
}

// demoPins are demo lines pinned in their chat: chat → line (from 0),
// pinned by Anna (an admin in the demo).
var demoPins = map[string]int{"room-general": 0, "room-organisers": 0}

// demoSaves are demo lines someone saved for later: chat, line (from
// 0), who, and when to remind them (one of reminder.Choices, "" for
// no reminder).
var demoSaves = []struct {
	chat   string
	line   int
	who    string
	remind string
}{
	{"room-random", 1, "anna", "tomorrow"},
	{"room-book-club", 0, "anna", ""},
	{"group", 1, "anna", ""},
	{"room-random", 1, "masha", ""},
}

// demoReactions answer demo lines: chat, line (from 0), emoji, who.
var demoReactions = []struct {
	chat  string
	line  int
	emoji string
	who   []string
}{
	{"room-general", 0, "👍", []string{"tom", "boris", "lily"}},
	{"room-general", 2, "❤️", []string{"anna", "masha"}},
	{"room-general", 4, "🎉", []string{"lily"}},
	{"room-random", 1, "👍", []string{"olga", "masha"}},
	{"group", 1, "😂", []string{"anna"}},
	{"group", 1, "❤️", []string{"anna", "lily"}},
}

// SeedDemo adds conversations to the rooms (a public book club and a
// private organisers' room among them), Anna's family group, the first
// upcoming event and a private chat between Anna and Boris.
func (s *Service) SeedDemo(ctx context.Context, cast platform.DemoCast) error {
	say := func(ch ChatRow, lines [][2]string) error {
		key := ch.RowKey
		if ch.Kind == KindGroup {
			key = "group"
		}
		var seqs []int64
		for i, l := range lines {
			p := cast.Person(l[0])
			var replyTo int64
			if to, ok := demoReplies[key][i]; ok {
				replyTo = seqs[to]
			}
			m, err := s.log.appendEntry(ctx, ch.RowKey, Person{MemberKey: p.Key, Name: p.Name}, TypeText, l[1], "", s.ttlOf(ch), replyTo)
			if err != nil {
				return fmt.Errorf("demo chat %s: %w", ch.RowKey, err)
			}
			seqs = append(seqs, m.Seq)
			s.counts.Add(ctx, MessagesSent)
			if ch.Kind == KindRoom {
				if err := s.setMember(ctx, p.Key, ch, true); err != nil {
					return err
				}
			} else {
				s.addToList(ctx, p.Key, ch)
			}
			if ch.Kind == KindPrivate {
				s.markWrote(ctx, &ch, p.Key)
			}
		}
		if line, ok := demoPins[key]; ok && line < len(seqs) {
			anna := cast.Person("anna")
			if _, _, err := s.log.Pin(ctx, ch.RowKey, seqs[line], Person{MemberKey: anna.Key, Name: anna.Name}, true); err != nil {
				return fmt.Errorf("demo pin in %s: %w", ch.RowKey, err)
			}
		}
		for _, v := range demoSaves {
			if v.chat == key && v.line < len(seqs) {
				if err := s.demoSave(ctx, cast.Person(v.who), ch, seqs[v.line], v.remind, cast.Now); err != nil {
					return fmt.Errorf("demo save in %s: %w", ch.RowKey, err)
				}
			}
		}
		for _, r := range demoReactions {
			if r.chat != key || r.line >= len(seqs) {
				continue
			}
			for _, who := range r.who {
				p := cast.Person(who)
				if _, _, err := s.log.React(ctx, ch.RowKey, seqs[r.line], Person{MemberKey: p.Key, Name: p.Name}, r.emoji); err != nil {
					return fmt.Errorf("demo reaction in %s: %w", ch.RowKey, err)
				}
			}
		}
		return nil
	}
	// A public room to find in the directory, a private one for two.
	if err := s.CreateRoom(ctx, "book-club", "Book club", "Books we read: one a month, in any language.", false, ""); err != nil && !errors.Is(err, ErrRoomExists) {
		return err
	}
	if err := s.CreateRoom(ctx, "organisers", "Organisers", "Planning the events.", true, ""); err != nil && !errors.Is(err, ErrRoomExists) {
		return err
	}
	for _, room := range []string{"room-general", "room-random", "room-book-club", "room-organisers"} {
		ch, err := s.chatRow(ctx, KindRoom, room)
		if err != nil {
			continue // a configured list without it
		}
		if err := say(ch, demoLines[room]); err != nil {
			return err
		}
	}
	anna := cast.Person("anna")
	// Anna keeps #random for when she has time: muted.
	if ch, err := s.chatRow(ctx, KindRoom, "room-random"); err == nil {
		if err := s.Mute(ctx, anna.Key, ch, "always"); err != nil {
			return err
		}
	}
	id := &auth.Identity{MemberKey: anna.Key, UserKey: auth.UserKey(anna.Email), Email: anna.Email, DisplayName: anna.Name}
	if g, ok := s.groups.(interface {
		GroupChoices(ctx context.Context, id *auth.Identity) ([]groups.GroupChoice, error)
	}); ok {
		choices, err := g.GroupChoices(ctx, id)
		if err != nil {
			return err
		}
		for _, c := range choices {
			if strings.Contains(c.Name, "Smith") {
				acc, err := s.Open(ctx, id, "group-"+c.GroupID)
				if err != nil {
					return err
				}
				if err := say(acc.Chat, demoLines["group"]); err != nil {
					return err
				}
				break
			}
		}
	}
	if e, ok := s.events.(interface {
		FirstUpcoming(ctx context.Context) (string, error)
	}); ok {
		eventID, err := e.FirstUpcoming(ctx)
		if err != nil {
			return err
		}
		if eventID != "" {
			acc, err := s.Open(ctx, id, "event-"+eventID)
			if err == nil {
				if err := say(acc.Chat, demoLines["event"]); err != nil {
					return err
				}
			}
		}
	}
	if s.people != nil {
		chatID, err := s.StartPrivate(ctx, id, cast.Person("boris").Key)
		if err != nil {
			return err
		}
		acc, err := s.Open(ctx, id, chatID)
		if err != nil {
			return err
		}
		if err := say(acc.Chat, demoLines["private"]); err != nil {
			return err
		}
		if err := s.demoPictureReport(ctx, cast); err != nil {
			return err
		}
	}
	return nil
}

// demoPictureReport has Tom send Masha, in a private chat, a picture of
// tickets he resells, which she reports: the admins' queue shows it with
// the picture they could not otherwise see.
func (s *Service) demoPictureReport(ctx context.Context, cast platform.DemoCast) error {
	if s.Reports == nil {
		return nil
	}
	tom, masha := cast.Person("tom"), cast.Person("masha")
	id := &auth.Identity{MemberKey: tom.Key, UserKey: auth.UserKey(tom.Email), Email: tom.Email, DisplayName: tom.Name}
	chatID, err := s.StartPrivate(ctx, id, masha.Key)
	if err != nil {
		return err
	}
	acc, err := s.Open(ctx, id, chatID)
	if err != nil {
		return err
	}
	art := platform.DemoArt{Top: color.RGBA{240, 200, 90, 255}, Bottom: color.RGBA{200, 80, 60, 255}, Accent: color.RGBA{255, 255, 255, 255},
		Discs: [][3]int{{160, 120, 70}, {470, 260, 90}}, Strength: 0.5}
	m, err := s.post(ctx, acc.Chat, acc.Title, Person{MemberKey: tom.Key, Name: tom.Name}, "Jazz night tickets, half price. Cash only, DM me", art.PNG(640, 400), 0)
	if err != nil {
		return err
	}
	r := s.reportOf(m, Person{MemberKey: masha.Key, Name: masha.Name})
	r.Reason, r.Note = moderation.Spam, "Продаёт билеты в личке, уже третий раз."
	return s.Reports.Report(ctx, r)
}

// demoSave saves message seq of ch for p, with a reminder in p's zone
// (one of reminder.Choices after now; "" for none).
func (s *Service) demoSave(ctx context.Context, p platform.DemoPerson, ch ChatRow, seq int64, remind string, now time.Time) error {
	if remind == "" {
		return s.Save(ctx, p.Key, ch, seq, true)
	}
	zone, err := time.LoadLocation(p.Timezone)
	if err != nil {
		return err
	}
	at, err := reminder.Time(remind, now, zone)
	if err != nil {
		return err
	}
	return s.RemindMessage(ctx, p.Key, ch, seq, at)
}
