package prompts

import (
	"context"
	"fmt"

	"github.com/harmony/harmony/internal/platform"
)

// demoPrompts are prompts the demo cast wrote, in English and Russian,
// with who of the cast liked them.
var demoPrompts = []struct {
	author string
	in     Input
	likes  []string
}{
	{"anna", Input{
		Title: "Weekly family meal planner",
		Text:  "Plan dinners for a family of {{people}} for the week of {{date}}. Keep weekday meals under {{minutes}} minutes, use what we have: {{fridge}}. Give a shopping list grouped by aisle.",
		Tags:  []string{"productivity", "fun"}, Visibility: Public,
	}, []string{"tom", "lily", "masha", "olga"}},
	{"lily", Input{
		Title: "Explain a pull request to a reviewer",
		Text:  "You are a senior engineer. Summarize this diff for a reviewer in five bullet points: what changed, why, the risk, how it was tested, and what to look at first.\n\n{{diff}}",
		Tags:  []string{"coding"}, Visibility: Public,
	}, []string{"anna", "boris"}},
	{"boris", Input{
		Title: "Письмо классному руководителю",
		Text:  "Помоги написать вежливое короткое письмо классному руководителю: ребёнок {{name}} пропустит занятия с {{from}} по {{to}} по причине «{{reason}}». Попроси задания на это время.",
		Tags:  []string{"writing"}, Visibility: Public,
	}, []string{"masha", "olga"}},
	{"olga", Input{
		Title: "Вопросы для книжного клуба",
		Text:  "Составь 8 вопросов для обсуждения книги «{{book}}» в клубе из {{people}} человек: от простых к спорным, без спойлеров после главы {{chapter}}.",
		Tags:  []string{"education", "creative"}, Visibility: Public,
	}, []string{"anna", "lily", "masha"}},
	{"masha", Input{
		Title: "Translate a school notice for grandparents",
		Text:  "Translate this school notice from {{from}} into plain {{to}} for grandparents: short sentences, dates spelled out, and what they need to do in bold.\n\n{{notice}}",
		Tags:  []string{"translation"}, Visibility: Public,
	}, []string{"boris"}},
	{"tom", Input{
		Title: "Car service checklist",
		Text:  "Make a checklist for a {{make}} {{model}} with {{mileage}} miles before its annual service: what to ask the garage, what to check myself, and typical costs.",
		Tags:  []string{"productivity"}, Visibility: Private,
	}, nil},
}

// demoCatalog is how many synthetic prompts fill the catalog around the
// cast's own (enough for several pages and every sort).
const demoCatalog = 120

// SeedDemo writes the cast's prompts with their likes (each liker saves
// the prompt too), and a catalog of synthetic ones around them.
func (s *Service) SeedDemo(ctx context.Context, cast platform.DemoCast) error {
	if _, err := s.SeedSynthetic(ctx, demoCatalog, SyntheticOptions{Seed: 1, Authors: 200}); err != nil {
		return err
	}
	for _, d := range demoPrompts {
		p, err := s.Create(ctx, cast.Person(d.author).Key, d.in)
		if err != nil {
			return fmt.Errorf("prompt %q: %w", d.in.Title, err)
		}
		for _, voter := range d.likes {
			if _, err := s.Vote(ctx, cast.Person(voter).Key, p.PromptID, 1); err != nil {
				return fmt.Errorf("vote on %q: %w", d.in.Title, err)
			}
			// Whoever likes a demo prompt keeps it too: their saved
			// prompts are not empty.
			if err := s.SetSaved(ctx, cast.Person(voter).Key, p.PromptID, true); err != nil {
				return fmt.Errorf("save %q: %w", d.in.Title, err)
			}
		}
	}
	return nil
}
