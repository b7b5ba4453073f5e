// Package moderation is what members' reports of content need in common:
// the report a module files, the reasons one may give, the queue that
// takes them (the admin section's) and the sources that take down what a
// report names (the modules whose content can be reported). It holds no
// storage and imports no module, so every module can use it.
package moderation

import (
	"context"
	"net/http"
	"slices"

	"github.com/harmony/harmony/internal/fault"
	"github.com/harmony/harmony/internal/formrule"
)

// Reasons a member may give, as Discourse and Zulip offer them: "other"
// needs a note.
const (
	Spam          = "spam"
	Harassment    = "harassment"
	Inappropriate = "inappropriate"
	Illegal       = "illegal"
	Other         = "other"
)

// Reasons are the reasons, in the order the form offers them.
var Reasons = []string{Spam, Harassment, Inappropriate, Illegal, Other}

// Refusals of a report, which the form shows on its reason (form.go).
var (
	ErrAlreadyReported = fault.New(http.StatusConflict, "moderation.error.already", "moderation: reported already")
	ErrOwn             = fault.New(http.StatusConflict, "moderation.error.own", "moderation: one's own content")
	ErrTooMany         = fault.New(http.StatusTooManyRequests, "moderation.error.too_many", "moderation: too many reports today")
)

// noteRule is the rule for a report's note.
var noteRule = formrule.Text{Max: 500, Multiline: true}

// Target names what a report is about, in its module's terms.
type Target struct {
	// Kind is the module and what it is: "forum.post", "chat.message".
	Kind string
	// Key is the module's own key for it ("{topicId}#{num}").
	Key string
}

// Report is one member's report of a target, with what the target said
// when it was reported, so a moderator reads it even after it changed.
type Report struct {
	Target
	// Link is where staff see the target (site-relative).
	Link string
	// Excerpt is the target's text when it was reported, plain.
	Excerpt string
	// Author and AuthorName are who wrote the target.
	Author, AuthorName string
	// By and ByName are who reports it.
	By, ByName string
	Reason     string
	Note       string
	// Scope names the staff besides the admins who may judge it (a
	// Staffed module's scope, "forum.section|news"); "" for the admins
	// alone.
	Scope string
	// Picture reads the reported picture (JPEG), when what is reported is
	// a picture staff could not open otherwise (a private chat's): the
	// queue reads it when the report opens and keeps it while it is open.
	// nil for none.
	Picture func(ctx context.Context) ([]byte, error)
}

// Check cleans a report form's reason and note: a reason not among
// Reasons is refused as the field "reason", a bad note as "note", and
// "other" needs a note.
func Check(reason, note string) (string, formrule.FieldErrors) {
	errs := formrule.FieldErrors{}
	note = errs.Check("note", noteRule, note, "moderation.error.note")
	if !slices.Contains(Reasons, reason) {
		errs["reason"] = "moderation.error.reason"
	} else if reason == Other && note == "" && errs["note"] == "" {
		errs["note"] = "moderation.error.note_needed"
	}
	if len(errs) > 0 {
		return note, errs
	}
	return note, nil
}

// Queue takes members' reports: the admin section's moderation queue.
type Queue interface {
	Report(ctx context.Context, r Report) error
	// Rescope takes the open reports of kind whose target key starts
	// with prefix to scope: their content moved (a forum topic to
	// another section).
	Rescope(ctx context.Context, kind, prefix, scope string) error
}

// Moderator is the staff member who acts on a report.
type Moderator struct {
	MemberKey, Name string
}

// Source is a module whose content can be reported: it takes down what a
// report names, hidden from everyone but staff, and logs it as its own
// moderation. A target already gone is not an error.
type Source interface {
	ReportKinds() []string
	TakeDown(ctx context.Context, t Target, by Moderator, reason string) error
}

// Staffed is a Source whose reports staff besides the admins judge, as
// a forum section's moderators judge the reports of its posts (as
// Discourse's category moderators review its flags). Its reports name
// a scope (Report.Scope).
type Staffed interface {
	// ReviewScopes are the scopes memberKey judges (none for most).
	ReviewScopes(ctx context.Context, memberKey string) ([]string, error)
	// Reviewers are the members who judge scope, admins aside.
	Reviewers(ctx context.Context, scope string) ([]string, error)
}

// Reporting is what a module whose content members report embeds: it
// takes the queue the platform hands it (platform.Reported's
// UseReports) and keeps it as Reports, nil until then (a module then
// offers no report).
type Reporting struct{ Reports Queue }

// UseReports lets members report the module's content to q. Call it
// while wiring, before Routes.
func (r *Reporting) UseReports(q Queue) { r.Reports = q }
