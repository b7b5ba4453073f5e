// Package memberdata is what every module keeps about one member, seen
// from the member's side: "Download my data" (Exporter) and "Delete my
// account" (Forgetter, and Previewer for what the confirmation page
// says will happen). The account module runs them; the composition
// root (platform.Build) hands it every module that implements them.
//
// A module's content that others rely on (a forum post others replied
// to, a chat message, an appointment in a group's calendar) outlives its
// author's account: the module rewrites its author to Forgotten, and
// pages show Name's "Deleted member" for it. What is the member's alone
// (a profile, photos, likes, saves, an inbox, registrations) goes.
package memberdata

import (
	"context"
	"io"
	"slices"
	"sync"

	"github.com/harmony/harmony/internal/i18n"
)

// Member is who is downloading their data or deleting their account.
type Member struct {
	// Key is the memberKey ("auth:…").
	Key string
	// UserKey is the userKey of their verified email ("" without one):
	// what invitations sent before they had an account are addressed to.
	UserKey string
	// Email is their verified email ("" without one).
	Email string
	// Name is their display name, as rows others keep may quote it (an
	// inbox notice's "{name} invited you").
	Name string
}

// Archive is the member's data archive being written: a zip whose
// folders are the modules' slugs.
type Archive interface {
	// JSON writes v, indented, as the file name ("groups/memberships.json").
	JSON(name string, v any) error
	// File copies r to the file name ("people/photos/1.jpg").
	File(name string, r io.Reader) error
}

// Files writes each of files into to as folder/{name}.json, in the
// order of their names: a module's folder of the archive.
func Files(to Archive, folder string, files map[string]any) error {
	names := make([]string, 0, len(files))
	for name := range files {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		if err := to.JSON(folder+"/"+name+".json", files[name]); err != nil {
			return err
		}
	}
	return nil
}

// Exporter writes what a module keeps about m into their archive, under
// a folder named by the module's slug: what they wrote and what they set,
// in readable field names (not storage's). It only reads.
type Exporter interface {
	ExportMember(ctx context.Context, m Member, to Archive) error
}

// Forgetter erases what a module keeps about m, who is deleting their
// account, and rewrites their authorship of what stays to Forgotten.
//
// It runs in a task (tasks.Queue) after the account is closed to sign-in,
// and again after a crash or an error: so it is idempotent and picks up
// where a run stopped, and it keeps every index consistent with its
// canonical rows, as the module's own deletions do (a cancelled
// registration offers its seat to the waitlist; a group owned alone
// passes to another member or, with none, is deleted).
type Forgetter interface {
	ForgetMember(ctx context.Context, m Member) error
}

// Consequence is one thing a member's deletion does to what they share
// with others, shown before they confirm it: the group that passes to
// someone, the event that is cancelled.
type Consequence struct {
	// What names the thing ("Book club"); URL is its page.
	What, URL string
	// Outcome says what becomes of it, in the request's language
	// ("passes to Olga Petrova").
	Outcome string
}

// Previewer tells what the module's ForgetMember would do, were it run
// now, to what m shares with others, by the same rules ForgetMember
// follows. It only reads, and at a bounded cost: it runs on the page
// that asks the member to confirm.
type Previewer interface {
	PreviewForget(ctx context.Context, m Member) ([]Consequence, error)
}

// Forgotten is the memberKey written in place of a deleted member's on
// content that outlives their account. It is no account's key: it has
// neither the "auth:" nor the "guest:" prefix.
const Forgotten = "forgotten"

// IsForgotten reports whether memberKey is Forgotten.
func IsForgotten(memberKey string) bool { return memberKey == Forgotten }

// ForgottenNames is "Deleted member" in each language, for what keeps a
// name per language (an inbox notice's arguments).
var ForgottenNames = sync.OnceValues(func() (map[i18n.Lang]string, error) {
	cat, err := i18n.New()
	if err != nil {
		return nil, err
	}
	out := map[i18n.Lang]string{}
	for _, l := range i18n.Supported() {
		out[l] = cat.For(l).T("member.forgotten")
	}
	return out, nil
})

// Name is the name a page shows for an author: "Deleted member" in the
// request's language for Forgotten, else the name kept with the content.
func Name(ctx context.Context, memberKey, name string) string {
	if IsForgotten(memberKey) {
		return i18n.T(ctx, "member.forgotten")
	}
	return name
}
