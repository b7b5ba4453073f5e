package events

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/harmony/harmony/internal/formrule"
	"github.com/harmony/harmony/internal/i18n"
	views "github.com/harmony/harmony/views/events"
)

// Questions for guests, as Luma's registration questions: an event asks
// up to MaxQuestions things ("Any dietary needs?") that those who
// register answer, and its organizers read the answers beside each
// request to join (where they decide on them), on the check-in list and
// in the attendees' CSV. A question is answered in words, or by one of
// its choices (MaxChoices at most, "Food", "Drinks", "Music"), or by any
// of them where the organizers let guests choose several, or by ticking
// a box (terms to agree to: "I have read the venue's rules"; or a yes:
// "Send me the photos afterwards"); it is required unless the organizers
// made it optional, so a required box is one a guest must tick. The questions ride
// on the event row (storedQuestions); the answers on the registration
// row (AttendeeRow.Answers, JSON, in the order of the questions then),
// written with it in the seat transaction. An answer is one line of at
// most MaxAnswer characters, or one of the choices as offered; a form
// without a required answer, or with a choice not offered, is refused on
// its fields, writing nothing. The member's data export has their
// answers, and forgetting them takes their registration rows, answers
// and all.

// MaxQuestions, MaxQuestion and MaxAnswer bound an event's questions and
// their answers; MaxChoices and MaxChoice a question's choices.
const (
	MaxQuestions = 3
	MaxQuestion  = 150
	MaxAnswer    = 300
	MaxChoices   = 10
	MaxChoice    = 80
)

var (
	questionRule = formrule.Text{Max: MaxQuestion}
	answerRule   = formrule.Text{Max: MaxAnswer}
	choicesRule  = formrule.Lines{Item: MaxChoice, Most: MaxChoices}
)

// Question is one of an event's questions for guests: its words, the
// choices it offers (none: answered in words), whether one may choose
// several of them, whether it is answered by ticking a box (Tick: no
// choices then), and whether it may be left unanswered.
type Question struct {
	Text     string   `json:"q"`
	Choices  []string `json:"choices,omitempty"`
	Several  bool     `json:"several,omitempty"`
	Tick     bool     `json:"tick,omitempty"`
	Optional bool     `json:"optional,omitempty"`
}

// ticked is the value a question's tick box sends, and its answer kept.
const ticked = "yes"

// questions are e's questions for guests, in order (storedQuestions).
func (e EventRow) questions() []Question { return storedQuestions(e.Questions) }

// questionTexts are e's questions' words, in order.
func (e EventRow) questionTexts() []string {
	var out []string
	for _, q := range e.questions() {
		out = append(out, q.Text)
	}
	return out
}

// storedQuestions reads an event row's questions: a JSON list of
// Question when any has choices or is optional, else (and as events
// made before choices keep them) their words, one a line, each required
// and answered in words.
func storedQuestions(s string) []Question {
	if s == "" {
		return nil
	}
	var qs []Question
	if strings.HasPrefix(s, "[") && json.Unmarshal([]byte(s), &qs) == nil {
		return qs
	}
	for _, line := range strings.Split(s, "\n") {
		qs = append(qs, Question{Text: line})
	}
	return qs
}

// storeQuestions is qs as an event row keeps them (storedQuestions).
func storeQuestions(qs []Question) string {
	plain := make([]string, 0, len(qs))
	for _, q := range qs {
		if len(q.Choices) > 0 || q.Several || q.Tick || q.Optional {
			b, _ := json.Marshal(qs)
			return string(b)
		}
		plain = append(plain, q.Text)
	}
	return strings.Join(plain, "\n")
}

// questionFields are a form's fields of question i: its words, its
// choices (one a line), whether several may be chosen, whether it is
// answered by a tick and whether it is optional.
func (in *EventInput) questionFields() [MaxQuestions]struct {
	Text, Choices           *string
	Several, Tick, Optional *bool
} {
	type fields = struct {
		Text, Choices           *string
		Several, Tick, Optional *bool
	}
	return [MaxQuestions]fields{
		{&in.Question1, &in.Choices1, &in.Several1, &in.Tick1, &in.Optional1},
		{&in.Question2, &in.Choices2, &in.Several2, &in.Tick2, &in.Optional2},
		{&in.Question3, &in.Choices3, &in.Several3, &in.Tick3, &in.Optional3},
	}
}

// parseQuestions checks the form's questions (blank ones left out, with
// their choices and optional mark) and returns them as the event row
// keeps them. Choices are one a line: blank lines and repeats are left
// out, and a question offers two at least; one that lets guests choose
// several has choices, and one answered by a tick has none.
func parseQuestions(in EventInput, errs FieldErrors) string {
	var qs []Question
	for i, f := range in.questionFields() {
		n := i + 1
		text := errs.Check(fmt.Sprintf("question%d", n), questionRule, *f.Text, "events.error.question")
		choices, problem := parseChoices(*f.Choices)
		if problem != "" {
			errs[fmt.Sprintf("choices%d", n)] = problem
		}
		if text == "" {
			if len(choices) > 0 && errs[fmt.Sprintf("question%d", n)] == "" {
				errs[fmt.Sprintf("question%d", n)] = "events.error.question_missing"
			}
			continue
		}
		switch {
		case problem != "":
		case *f.Tick && (len(choices) > 0 || *f.Several):
			errs[fmt.Sprintf("choices%d", n)] = "events.error.choices_tick"
		case *f.Several && len(choices) == 0:
			errs[fmt.Sprintf("choices%d", n)] = "events.error.choices_several"
		}
		qs = append(qs, Question{Text: text, Choices: choices, Several: *f.Several, Tick: *f.Tick, Optional: *f.Optional})
	}
	return storeQuestions(qs)
}

// parseChoices reads a question's choices, one a line, and says what is
// wrong with them ("" for nothing): none is fine (answered in words).
func parseChoices(typed string) ([]string, string) {
	out, p := choicesRule.Check(typed)
	switch {
	case p != formrule.OK:
		return nil, "events.error.choices"
	case len(out) == 1:
		return nil, "events.error.choices_few"
	}
	return out, ""
}

// questionsInput sets a form's question fields from questions.
func (in *EventInput) questionsInput(questions []Question) {
	for i, f := range in.questionFields() {
		if i < len(questions) {
			q := questions[i]
			*f.Text, *f.Choices, *f.Several, *f.Tick, *f.Optional = q.Text, strings.Join(q.Choices, "\n"), q.Several, q.Tick, q.Optional
		}
	}
}

// answerField is the name of the register form's answer to question i.
func answerField(i int) string { return fmt.Sprintf("answer%d", i+1) }

// QA is a question with one guest's answer, as the registration keeps
// it: the question's words then, so an edit of the questions later
// leaves what they answered readable. Chosen are the choices of a
// question where several may be chosen, and Answer them as one text.
// Tick marks a question answered by a tick box: Answer is ticked, or ""
// for a box left as it was.
type QA struct {
	Question string   `json:"q"`
	Answer   string   `json:"a"`
	Chosen   []string `json:"chosen,omitempty"`
	Tick     bool     `json:"tick,omitempty"`
}

// parseAnswers checks the answers (by answerField) to e's questions:
// each one line of at most MaxAnswer characters, or one of its choices
// (any of them, each once, where several may be chosen), and required
// unless the question is optional. It returns them as the registration
// keeps them (JSON; "" when e asks nothing), as typed (cleaned) for a
// form shown again, and what is wrong with each by field.
func parseAnswers(e EventRow, answer func(field string) []string) (string, [][]string, FieldErrors) {
	qs := e.questions()
	if len(qs) == 0 {
		return "", nil, nil
	}
	errs := FieldErrors{}
	typed := make([][]string, len(qs))
	qa := make([]QA, len(qs))
	for i, q := range qs {
		field := answerField(i)
		given := answer(field)
		switch {
		case q.Tick:
			// A box ticked sends ticked; anything else is no tick.
			given = slices.DeleteFunc(given[:min(len(given), 1)], func(v string) bool { return v != ticked })
		case !q.Several:
			given = given[:min(len(given), 1)]
		case len(given) > len(q.Choices):
			// More than a form's checkboxes send: read no further.
			given = given[:len(q.Choices)+1]
		}
		for _, v := range given {
			if v = errs.Check(field, answerRule, v, "events.error.answer"); v != "" && !slices.Contains(typed[i], v) {
				typed[i] = append(typed[i], v)
			}
		}
		qa[i] = QA{Question: q.Text, Answer: strings.Join(typed[i], ", "), Tick: q.Tick}
		if q.Several {
			qa[i].Chosen = typed[i]
		}
		switch {
		case errs[field] != "":
		case len(typed[i]) == 0 && !q.Optional && q.Tick:
			errs[field] = "events.error.answer_tick"
		case len(typed[i]) == 0 && !q.Optional && q.Several:
			errs[field] = "events.error.answer_several"
		case len(typed[i]) == 0 && !q.Optional && len(q.Choices) > 0:
			errs[field] = "events.error.answer_choose"
		case len(typed[i]) == 0 && !q.Optional:
			errs[field] = "events.error.answer_missing"
		case len(q.Choices) > 0 && slices.ContainsFunc(typed[i], func(v string) bool { return !slices.Contains(q.Choices, v) }):
			errs[field] = "events.error.answer_choose"
			if q.Several {
				errs[field] = "events.error.answer_several"
			}
		}
	}
	if len(errs) > 0 {
		return "", typed, errs
	}
	b, _ := json.Marshal(qa)
	return string(b), typed, nil
}

// answersOf are a registration's questions and answers, in order.
func answersOf(a AttendeeRow) []QA {
	var out []QA
	if a.Answers != "" {
		_ = json.Unmarshal([]byte(a.Answers), &out)
	}
	return out
}

// registerQuestions are the register form's fields for e's questions:
// the answers typed (nil: none yet) and what is wrong with each.
func registerQuestions(ctx context.Context, e EventRow, typed [][]string, errs FieldErrors) []views.RegisterQuestion {
	var out []views.RegisterQuestion
	for i, q := range e.questions() {
		f := views.RegisterQuestion{Field: answerField(i), Question: q.Text, Choices: q.Choices, Several: q.Several, Tick: q.Tick, Optional: q.Optional, Max: MaxAnswer}
		if key := errs[answerField(i)]; key != "" {
			f.Error = i18n.T(ctx, key, "max", MaxAnswer)
		}
		if i < len(typed) {
			f.Values = typed[i]
		}
		out = append(out, f)
	}
	return out
}

// answerViews are a's questions and answers as the organizers' lists
// show them, a box ticked in their language (an optional question left
// unanswered is left out).
func answerViews(ctx context.Context, a AttendeeRow) []views.Answer {
	var out []views.Answer
	for _, qa := range answersOf(a) {
		switch {
		case qa.Answer == "":
		case qa.Tick:
			out = append(out, views.Answer{Question: qa.Question, Answer: i18n.T(ctx, "events.answer.ticked")})
		default:
			out = append(out, views.Answer{Question: qa.Question, Answer: qa.Answer})
		}
	}
	return out
}

// csvAnswer is an answer as the attendees' CSV has it: a tick box's as
// true or false, as the CSV's other yes-or-no columns.
func csvAnswer(qa QA) string {
	if qa.Tick {
		return strconv.FormatBool(qa.Answer == ticked)
	}
	return qa.Answer
}
