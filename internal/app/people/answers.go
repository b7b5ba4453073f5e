package people

import (
	"context"
	"encoding/json"
	"net/http"
	"slices"
	"strconv"

	"github.com/labstack/echo/v4"

	"github.com/harmony/harmony/internal/auth"
	"github.com/harmony/harmony/internal/formrule"
	"github.com/harmony/harmony/internal/i18n"
	"github.com/harmony/harmony/internal/web"
	"github.com/harmony/harmony/views/components"
	views "github.com/harmony/harmony/views/people"
)

// Questions on the card, as Hinge's prompts: a person picks up to
// MaxAnswers of Questions and answers each in a few words, and their card
// shows them, the first on the Discover tile, all on their page. Asking
// the same questions of everyone gives a stranger something to start
// from that a bio rarely does. The answers ride on the profile and its
// directory row (account.SetAnswers), as the card's photo does, so the
// cards read them at no cost.

// Questions are the questions a card may answer: ids, worded in the
// locale files (people.question.{id}).
var Questions = []string{
	"simple_pleasures", "perfect_sunday", "learning", "together", "song",
	"best_trip", "green_flag", "unpopular_opinion", "never", "hobby",
}

// MaxAnswers is how many questions a card answers at most; MaxAnswer
// bounds an answer in characters.
const (
	MaxAnswers = 3
	MaxAnswer  = 200
)

// questionsURL is the page where a person answers their questions.
const questionsURL = "/people/questions"

// Answer is one question a card answers.
type Answer struct {
	Question string `json:"q"`
	Text     string `json:"a"`
}

// answersOf reads the answers a profile keeps: a question no longer asked
// is left out, and text that cannot be read is no answers.
func answersOf(stored string) []Answer {
	if stored == "" {
		return nil
	}
	var out []Answer
	if json.Unmarshal([]byte(stored), &out) != nil {
		return nil
	}
	return slices.DeleteFunc(out, func(a Answer) bool { return !slices.Contains(Questions, a.Question) || a.Text == "" })
}

// answerRule is an answer's text rule.
var answerRule = formrule.Text{Max: MaxAnswer, Multiline: true}

// AnswersInput is the questions form as typed: MaxAnswers question and
// answer pairs (question1, answer1, …).
type AnswersInput [MaxAnswers]Answer

// readAnswers reads the form's pairs.
func readAnswers(c echo.Context) AnswersInput {
	var in AnswersInput
	for i := range in {
		n := strconv.Itoa(i + 1)
		in[i] = Answer{Question: c.FormValue("question" + n), Text: c.FormValue("answer" + n)}
	}
	return in
}

// clean checks the form: each answer by the text rules, a known question
// for each answer and an answer for each question, no question twice.
// The answers kept are the pairs filled, in order.
func (in AnswersInput) clean() ([]Answer, formrule.FieldErrors) {
	errs := formrule.FieldErrors{}
	var out []Answer
	for i, a := range in {
		n := strconv.Itoa(i + 1)
		text := errs.CheckAs("answer"+n, answerRule, a.Text, "", "people.questions.error.answer")
		switch {
		case errs["answer"+n] != "":
		case a.Question == "" && text == "":
		case !slices.Contains(Questions, a.Question):
			errs["question"+n] = "people.questions.error.question"
		case text == "":
			errs["answer"+n] = "people.questions.error.empty"
		case slices.ContainsFunc(out, func(b Answer) bool { return b.Question == a.Question }):
			errs["question"+n] = "people.questions.error.twice"
		default:
			out = append(out, Answer{Question: a.Question, Text: text})
		}
	}
	return out, errs
}

// SetAnswers saves memberKey's answers from the form; a refusal is the
// form's field errors, and writes nothing.
func (s *Service) SetAnswers(ctx context.Context, memberKey string, in AnswersInput) error {
	answers, errs := in.clean()
	if len(errs) > 0 {
		return errs
	}
	stored := ""
	if len(answers) > 0 {
		b, err := json.Marshal(answers)
		if err != nil {
			return err
		}
		stored = string(b)
	}
	return s.accounts.SetAnswers(ctx, memberKey, stored)
}

// questionsPage is GET /people/questions: the viewer's answers, to
// change.
func (h *handlers) questionsPage(c echo.Context) error {
	entry, err := h.svc.accounts.DirectoryEntry(c.Request().Context(), auth.From(c).MemberKey)
	if err != nil {
		return err
	}
	var in AnswersInput
	copy(in[:], answersOf(entry.Answers))
	return renderQuestions(c, http.StatusOK, in, nil)
}

// saveQuestions is POST /people/questions.
func (h *handlers) saveQuestions(c echo.Context) error {
	in := readAnswers(c)
	err := h.svc.SetAnswers(c.Request().Context(), auth.From(c).MemberKey, in)
	return web.AnswerForm(c, err, "people.questions.saved", questionsURL, func(status int, errs formrule.FieldErrors) error {
		return renderQuestions(c, status, in, errs)
	})
}

// renderQuestions shows the questions form with what was typed and the
// refusals.
func renderQuestions(c echo.Context, status int, in AnswersInput, errs formrule.FieldErrors) error {
	ctx := c.Request().Context()
	p := views.QuestionsProps{Max: MaxAnswer, Errors: map[string]string{}}
	for _, q := range Questions {
		p.Questions = append(p.Questions, components.Option{Value: q, Label: i18n.T(ctx, "people.question."+q)})
	}
	for i, a := range in {
		p.Pairs = append(p.Pairs, views.Pair{N: strconv.Itoa(i + 1), Question: a.Question, Answer: a.Text})
	}
	for k, v := range errs {
		p.Errors[k] = i18n.T(ctx, v)
	}
	return web.Render(c, status, web.Page{Title: i18n.T(ctx, "people.questions.heading"), Section: "people", Content: views.Questions(p)})
}

// cardAnswers are a card's answers as the views show them, worded in
// the request's language.
func cardAnswers(ctx context.Context, stored string) []views.CardAnswer {
	var out []views.CardAnswer
	for _, a := range answersOf(stored) {
		out = append(out, views.CardAnswer{ID: a.Question, Question: i18n.T(ctx, "people.question."+a.Question), Text: a.Text})
	}
	return out
}
