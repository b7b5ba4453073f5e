package events

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/harmony/harmony/internal/formrule"
	"github.com/harmony/harmony/internal/i18n"
	views "github.com/harmony/harmony/views/events"
)

// Questions for guests, as Luma's registration questions: an event asks
// up to MaxQuestions things ("Any dietary needs?") that everyone who
// registers answers, and its organizers read the answers beside each
// request to join (where they decide on them), on the check-in list and
// in the attendees' CSV. The questions ride on the event row, one a
// line; the answers on the registration row (AttendeeRow.Answers, JSON,
// in the order of the questions then), written with it in the seat
// transaction. An answer is required, one line of at most MaxAnswer
// characters; a form without them is refused on its fields, writing
// nothing. The member's data export has their answers, and forgetting
// them takes their registration rows, answers and all.

// MaxQuestions, MaxQuestion and MaxAnswer bound an event's questions and
// their answers.
const (
	MaxQuestions = 3
	MaxQuestion  = 150
	MaxAnswer    = 300
)

var (
	questionRule = formrule.Text{Max: MaxQuestion}
	answerRule   = formrule.Text{Max: MaxAnswer, Required: true}
)

// questions are e's questions for guests, in order.
func (e EventRow) questions() []string {
	if e.Questions == "" {
		return nil
	}
	return strings.Split(e.Questions, "\n")
}

// parseQuestions checks the form's questions (blank ones left out) and
// joins them, one a line.
func parseQuestions(in EventInput, errs FieldErrors) string {
	var qs []string
	for i, q := range []string{in.Question1, in.Question2, in.Question3} {
		if q = errs.Check(fmt.Sprintf("question%d", i+1), questionRule, q, "events.error.question"); q != "" {
			qs = append(qs, q)
		}
	}
	return strings.Join(qs, "\n")
}

// questionsInput is a form's three question fields from questions.
func questionsInput(questions []string) (q1, q2, q3 string) {
	qs := append(questions, "", "", "")
	return qs[0], qs[1], qs[2]
}

// answerField is the name of the register form's answer to question i.
func answerField(i int) string { return fmt.Sprintf("answer%d", i+1) }

// QA is a question with one guest's answer, as the registration keeps
// it: the question's words then, so an edit of the questions later
// leaves what they answered readable.
type QA struct {
	Question string `json:"q"`
	Answer   string `json:"a"`
}

// parseAnswers checks the answers (by answerField) to e's questions:
// each required, one line of at most MaxAnswer characters. It returns
// them as the registration keeps them (JSON; "" when e asks nothing),
// as typed (cleaned) for a form shown again, and what is wrong with
// each by field.
func parseAnswers(e EventRow, answer func(field string) string) (string, []string, FieldErrors) {
	qs := e.questions()
	if len(qs) == 0 {
		return "", nil, nil
	}
	errs := FieldErrors{}
	typed := make([]string, len(qs))
	qa := make([]QA, len(qs))
	for i, q := range qs {
		typed[i] = errs.Check(answerField(i), answerRule, answer(answerField(i)), "events.error.answer")
		qa[i] = QA{Question: q, Answer: typed[i]}
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
func registerQuestions(ctx context.Context, e EventRow, typed []string, errs FieldErrors) []views.RegisterQuestion {
	var out []views.RegisterQuestion
	for i, q := range e.questions() {
		f := views.RegisterQuestion{Field: answerField(i), Question: q, Max: MaxAnswer}
		if key := errs[answerField(i)]; key != "" {
			f.Error = i18n.T(ctx, key, "max", MaxAnswer)
		}
		if i < len(typed) {
			f.Value = typed[i]
		}
		out = append(out, f)
	}
	return out
}

// answerViews are a's questions and answers as the organizers' lists
// show them.
func answerViews(a AttendeeRow) []views.Answer {
	var out []views.Answer
	for _, qa := range answersOf(a) {
		out = append(out, views.Answer{Question: qa.Question, Answer: qa.Answer})
	}
	return out
}
