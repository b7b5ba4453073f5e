package groups

import (
	"context"
	"fmt"
	"time"

	"github.com/harmony/harmony/internal/auth"
	"github.com/harmony/harmony/internal/platform"
)

// demoGroup is one group of the demo content: who owns it, who joined,
// who is still invited, and its plans.
type demoGroup struct {
	name    string
	owner   string   // cast local part
	members []string // accepted
	invited []string // addresses, pending
	plans   []demoPlan
	lists   []demoList
}

// demoList is a shared list: who started it and its items in the order
// added, each ticked off by someone or not ("" for not), the later
// ticked ones later in the slice.
type demoList struct {
	name, owner string
	items       [][2]string // text, who ticked it
}

// demoPlan is an appointment days and hours after the seed's day, in the
// owner's zone.
type demoPlan struct {
	title, location, notes string
	days, hour, minute     int
	hours                  int    // length
	responsible            string // cast local part, "" for none
	withAll                bool   // every member takes part
	// allDay plans take whole days: spanDays of them (1 when 0).
	allDay   bool
	spanDays int
	canceled bool
	// weekly repeats it every week, on its weekday.
	weekly bool
	// comments are [who, text] pairs, in order.
	comments [][2]string
}

var demoGroups = []demoGroup{
	{
		name: "The Smiths", owner: "anna", members: []string{"tom", "lily"}, invited: []string{"grandma.smith@demo.example"},
		plans: []demoPlan{
			{title: "Dentist check-up", location: "Bright Smile Clinic, 12 High St", days: 2, hour: 9, minute: 30, hours: 1, responsible: "tom"},
			{title: "Football practice", location: "Riverside Park", notes: "Bring the blue kit and water.", days: -25, hour: 17, hours: 2, responsible: "anna", withAll: true, weekly: true},
			{title: "Parents' evening", location: "St Mary's School, hall B", days: 6, hour: 18, hours: 1, responsible: "anna"},
			{title: "Grandma's birthday dinner", location: "Luigi's, Market Square", notes: "Table for six booked under Smith.", days: 12, hour: 19, hours: 3, withAll: true,
				comments: [][2]string{{"lily", "I'll bake the cake. **Chocolate**, as always?"}, {"tom", "Yes! I'll pick up the flowers on the way."}}},
			{title: "Car service", location: "Hillside Garage", days: 20, hour: 8, hours: 2, responsible: "tom"},
			{title: "Lily's birthday", days: 10, allDay: true, withAll: true},
			{title: "Grandma and Grandpa visit", location: "Staying in the guest room", days: 15, allDay: true, spanDays: 4, withAll: true},
			{title: "School trip to the museum", location: "Natural History Museum", days: 8, hour: 9, hours: 6, responsible: "lily"},
			{title: "Piano lesson", location: "Mrs Green's", days: 4, hour: 16, hours: 1, responsible: "lily", canceled: true},
			{title: "Vet: Biscuit's jabs", location: "Oakfield Vets", days: 4, hour: 16, minute: 30, hours: 1, responsible: "tom"},
		},
		lists: []demoList{
			{name: "Groceries", owner: "anna", items: [][2]string{
				{"Milk (2 pints)", ""}, {"Sourdough bread", "tom"}, {"Free-range eggs", ""}, {"Bananas", "lily"},
				{"Cheddar cheese", ""}, {"Biscuit's dog food", "tom"}, {"Chocolate for the birthday cake", ""}, {"Washing-up liquid", ""},
			}},
			{name: "Before the trip", owner: "tom", items: [][2]string{
				{"Book the car park at the airport", "anna"}, {"Passports in the blue folder", ""}, {"Ask the neighbours to feed Biscuit", ""},
			}},
		},
	},
	{
		name: "Семья Ивановых", owner: "boris", members: []string{"masha", "anna"},
		plans: []demoPlan{
			{title: "Приём у педиатра", location: "Детская поликлиника № 3, каб. 214", days: 1, hour: 10, hours: 1, responsible: "masha"},
			{title: "Родительское собрание", location: "Школа № 57, актовый зал", days: 4, hour: 19, hours: 1, responsible: "boris"},
			{title: "Поездка на дачу", location: "СНТ «Берёзка»", notes: "Взять рассаду и удобрения.", days: 9, hour: 8, hours: 10, withAll: true,
				comments: [][2]string{{"masha", "Возьму термос и пирожки. Выезжаем в **восемь**?"}, {"boris", "Да, в восемь. Заправлюсь накануне."}}},
			{title: "Бассейн", location: "ФОК «Волна»", days: -23, hour: 18, minute: 30, hours: 1, responsible: "masha", weekly: true},
		},
		lists: []demoList{
			{name: "Продукты", owner: "masha", items: [][2]string{
				{"Молоко 3,2 %", ""}, {"Чёрный хлеб", "boris"}, {"Гречка", ""}, {"Творог", "masha"},
				{"Яблоки", ""}, {"Сметана", ""},
			}},
			{name: "На дачу", owner: "boris", items: [][2]string{
				{"Рассада помидоров", "masha"}, {"Удобрения", ""}, {"Термос", ""},
			}},
		},
	},
	{
		name: "Book club · Книжный клуб", owner: "olga", members: []string{"anna", "lily", "masha"}, invited: []string{"boris@demo.example"},
		plans: []demoPlan{
			{title: "Anna Karenina, part 1 · «Анна Каренина», ч. 1", location: "Café Pushkin, upstairs", notes: "Chapters 1–34. Bring questions!", days: 7, hour: 19, hours: 2, responsible: "olga", withAll: true},
			{title: "The Master and Margarita · «Мастер и Маргарита»", location: "Online", days: 35, hour: 19, hours: 2, responsible: "lily", withAll: true},
		},
	},
}

// SeedDemo creates the demo groups the way their members would: the owner
// creates and invites, the members accept, and plans are made (which also
// fills the inboxes).
func (s *Service) SeedDemo(ctx context.Context, cast platform.DemoCast) error {
	idOf := func(local string) *auth.Identity {
		p := cast.Person(local)
		return &auth.Identity{MemberKey: p.Key, UserKey: auth.UserKey(p.Email), Email: p.Email, DisplayName: p.Name, Timezone: p.Timezone}
	}
	for _, dg := range demoGroups {
		owner := idOf(dg.owner)
		g, err := s.Create(ctx, owner, dg.name)
		if err != nil {
			return err
		}
		m, _, err := s.Open(ctx, g.GroupID, owner, AccessOwner)
		if err != nil {
			return err
		}
		for _, local := range dg.members {
			if _, err := s.Invite(ctx, m, g, owner, cast.Person(local).Email); err != nil {
				return fmt.Errorf("invite %s: %w", local, err)
			}
			id := idOf(local)
			mi, _, err := s.Open(ctx, g.GroupID, id, AccessInvitee)
			if err != nil {
				return err
			}
			if _, err := s.Accept(ctx, mi, id); err != nil {
				return fmt.Errorf("accept %s: %w", local, err)
			}
		}
		for _, email := range dg.invited {
			if _, err := s.Invite(ctx, m, g, owner, email); err != nil {
				return fmt.Errorf("invite %s: %w", email, err)
			}
		}
		zone, err := time.LoadLocation(cast.Person(dg.owner).Timezone)
		if err != nil {
			return err
		}
		day := cast.Now.In(zone)
		everyone := []string{owner.MemberKey}
		for _, local := range dg.members {
			everyone = append(everyone, cast.Person(local).Key)
		}
		for _, p := range dg.plans {
			start := time.Date(day.Year(), day.Month(), day.Day()+p.days, p.hour, p.minute, 0, 0, zone)
			in := AppointmentInput{
				Title: p.title, Location: p.location, Notes: p.notes,
				Start: start.Format(FormTimeLayout), End: start.Add(time.Duration(p.hours) * time.Hour).Format(FormTimeLayout),
			}
			if p.weekly {
				in.Repeat = RepeatInput{Freq: RepeatWeekly}
			}
			if p.allDay {
				in.AllDay = true
				in.Start = start.Format(time.DateOnly)
				in.End = start.AddDate(0, 0, max(1, p.spanDays)-1).Format(time.DateOnly)
			}
			if p.responsible != "" {
				in.Responsible = cast.Person(p.responsible).Key
			}
			if p.withAll {
				in.Participants = everyone
			}
			doc, err := s.CreateAppointment(ctx, m, owner, in, zone)
			if err != nil {
				return fmt.Errorf("plan %q: %w", p.title, err)
			}
			for _, c := range p.comments {
				if _, err := s.AddComment(ctx, m, idOf(c[0]), doc.AppointmentID, c[1]); err != nil {
					return fmt.Errorf("comment on %q: %w", p.title, err)
				}
			}
			if p.canceled {
				if err := s.CancelAppointment(ctx, m, owner, doc.AppointmentID); err != nil {
					return err
				}
			}
		}
		if err := s.seedDemoLists(ctx, m, dg.lists, idOf); err != nil {
			return err
		}
	}
	return nil
}

// seedDemoLists starts a group's demo lists as their members would:
// items added in order, then some ticked off.
func (s *Service) seedDemoLists(ctx context.Context, m Membership, lists []demoList, idOf func(string) *auth.Identity) error {
	for _, dl := range lists {
		l, err := s.CreateList(ctx, m, idOf(dl.owner), dl.name)
		if err != nil {
			return fmt.Errorf("list %q: %w", dl.name, err)
		}
		var ticks []func() error
		for _, it := range dl.items {
			item, err := s.AddListItem(ctx, l, idOf(dl.owner), it[0])
			if err != nil {
				return fmt.Errorf("list item %q: %w", it[0], err)
			}
			if it[1] != "" {
				ticks = append(ticks, func() error {
					_, err := s.TickListItem(ctx, l, idOf(it[1]), item.ID(), true)
					return err
				})
			}
		}
		for _, tick := range ticks {
			if err := tick(); err != nil {
				return fmt.Errorf("tick on %q: %w", dl.name, err)
			}
		}
	}
	return nil
}
