package account

// "Delete my account": the account is closed to sign-in at once, its
// sessions end, and the task account.forget erases it: every module's
// rows (memberdata.Forgetter, in module order), then the task queue's
// rows naming them, then auth's, then this module's own, the profile
// last.

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/harmony/harmony/internal/auth"
	"github.com/harmony/harmony/internal/fault"
	"github.com/harmony/harmony/internal/mail"
	"github.com/harmony/harmony/internal/memberdata"
	"github.com/harmony/harmony/internal/storage"
	"github.com/harmony/harmony/internal/tasks"
)

// ForgetKind is the task that erases a closed account.
const ForgetKind = "account.forget"

// MemberData is what "Download my data" and "Delete my account" run on,
// handed over by the composition root (platform.Build).
type MemberData struct {
	// Exporters and Forgetters are the modules that keep something about
	// a member, in module order (the account module and auth not among
	// them: they run their own parts themselves).
	Exporters  []memberdata.Exporter
	Forgetters []memberdata.Forgetter
	// Previewers tell what the deletion would do to what the member
	// shares, for the confirmation page.
	Previewers []memberdata.Previewer
	// Auth erases the sign-in rows (sessions, codes, email links).
	Auth memberdata.Forgetter
	// Tasks runs account.forget; Mailer (nil: no mail can be sent)
	// tells the member when it is done.
	Tasks  *tasks.Queue
	Mailer mail.Sender
}

// forgetTask is account.forget's value: who, and the mail that tells
// them it is done, written in their language when they asked (To is ""
// without an email).
type forgetTask struct {
	Member memberdata.Member
	Mail   mail.Message
}

// UseMemberData wires the modules' exports and forgets and registers
// account.forget on d.Tasks. Call it once while wiring, before serving.
func (s *Service) UseMemberData(d MemberData) error {
	if d.Tasks == nil || d.Auth == nil {
		return errors.New("account: member data needs the task queue and auth")
	}
	kind, err := tasks.Register(d.Tasks, ForgetKind, s.forget)
	if err != nil {
		return err
	}
	s.data, s.forgetTask = d, kind
	return nil
}

var (
	// ErrConfirmMismatch refuses a deletion whose confirmation is not
	// the account's email (or name, without one): 422, nothing changes.
	ErrConfirmMismatch = fault.New(http.StatusUnprocessableEntity, "account.data.error.confirm", "account: the deletion was not confirmed")
	// ErrLastAdmin refuses the deletion of the site's last admin (409).
	ErrLastAdmin = fault.New(http.StatusConflict, "account.data.error.last_admin", "account: the last admin cannot delete their account")
	// ErrNoForget means the app was built without UseMemberData.
	ErrNoForget = errors.New("account: deletion is not wired")
)

// MemberOf is the member whose data a profile is: their memberKey, their
// display name, their email and its userKey, or, without an email, the userKey auth derives
// from the memberKey (what their group memberships are keyed by).
func MemberOf(p ProfileRow) memberdata.Member {
	m := memberdata.Member{Key: p.PartitionKey, Email: p.Email, Name: strings.TrimSpace(p.DisplayName)}
	if p.Email != "" {
		m.UserKey = auth.UserKey(p.Email)
	} else {
		m.UserKey = auth.MemberUserKey(p.PartitionKey)
	}
	return m
}

// ConfirmationWord is what the member types to confirm the deletion:
// their email, or their name when they have none.
func ConfirmationWord(p ProfileRow) string {
	if p.Email != "" {
		return p.Email
	}
	return p.DisplayName
}

// confirmed compares what was typed with the word: an email in any case,
// a name exactly, spaces around either ignored.
func confirmed(p ProfileRow, typed string) bool {
	typed, want := strings.TrimSpace(typed), ConfirmationWord(p)
	if p.Email != "" {
		return strings.EqualFold(typed, want)
	}
	return typed != "" && typed == strings.TrimSpace(want)
}

// CloseAccount deletes memberKey's account as its owner asked, once typed
// confirms it: the account is closed to sign-in (DeletedAt), its sessions
// end, and account.forget is queued, keyed by the member so a second
// submit queues nothing more; done tells them by mail when it is over.
// The last admin is refused (409) unless ADMIN_EMAILS names someone. A
// closed account asked again only queues the task (a retry after a
// failure on the way).
func (s *Service) CloseAccount(ctx context.Context, memberKey, typed string, done mail.Message) error {
	p, err := s.profileToForget(ctx, memberKey)
	if err != nil {
		return err
	}
	if p.DeletedAt == nil {
		if !confirmed(p, typed) {
			return ErrConfirmMismatch
		}
		if err := s.keepsAnAdmin(ctx, p, 1); err != nil {
			return err
		}
		if p, err = s.setClosed(ctx, memberKey, true); err != nil {
			return err
		}
		// Counted after the write as well, as the admin page's switches
		// are: of two last admins deleting at once, the one counted last
		// is undone.
		if err := s.keepsAnAdmin(ctx, p, 0); err != nil {
			if _, undo := s.setClosed(ctx, memberKey, false); undo != nil {
				err = errors.Join(err, undo)
			}
			return err
		}
	}
	if err := s.sessions.RevokeAllSessions(ctx, memberKey); err != nil {
		return err
	}
	m := MemberOf(p)
	done.To = m.Email
	done.Key = keyOf("deleted", memberKey)
	if err := s.forgetTask.Enqueue(ctx, keyOf(ForgetKind, memberKey), forgetTask{Member: m, Mail: done}); err != nil {
		return err
	}
	s.log.InfoContext(ctx, "account closed; its deletion is queued", "member", memberKey)
	return nil
}

// PreviewForget is what deleting p's account would do to the groups
// and events they run, each module's Previewer in module order.
func (s *Service) PreviewForget(ctx context.Context, p ProfileRow) ([]memberdata.Consequence, error) {
	var all []memberdata.Consequence
	for _, pv := range s.data.Previewers {
		cs, err := pv.PreviewForget(ctx, MemberOf(p))
		if err != nil {
			return nil, err
		}
		all = append(all, cs...)
	}
	return all, nil
}

// profileToForget reads the profile of an account to close or erase:
// ErrNoForget when the app was built without UseMemberData.
func (s *Service) profileToForget(ctx context.Context, memberKey string) (ProfileRow, error) {
	if s.data.Tasks == nil {
		return ProfileRow{}, ErrNoForget
	}
	return s.Profile(ctx, memberKey)
}

// keepsAnAdmin refuses with ErrLastAdmin when p holds the admin role, no
// ADMIN_EMAILS is configured, and at most fewest enabled admins are left.
func (s *Service) keepsAnAdmin(ctx context.Context, p ProfileRow, fewest int) error {
	if p.Role != RoleAdmin || s.AdminsConfigured() {
		return nil
	}
	n, err := s.CountAdmins(ctx)
	if err != nil {
		return err
	}
	if n <= fewest {
		return ErrLastAdmin
	}
	return nil
}

// setClosed marks the account closed (or opens it again, the undo of a
// refused last admin).
func (s *Service) setClosed(ctx context.Context, memberKey string, closed bool) (ProfileRow, error) {
	return s.updateProfile(ctx, memberKey, func(p *ProfileRow) error {
		if closed {
			now := s.now().UTC()
			p.DeletedAt = &now
		} else {
			p.DeletedAt = nil
		}
		return nil
	})
}

// keyOf is a task key for the member that does not hold their memberKey:
// the Tasks table keeps keys for a while after their task is done, and a
// deleted member's key must be in no row.
func keyOf(kind, memberKey string) string {
	sum := sha256.Sum256([]byte(kind + "|" + memberKey))
	return kind + "|" + hex.EncodeToString(sum[:16])
}

// forget is account.forget: every module's ForgetMember, then the
// queue's rows naming the member, auth's, then the account's own rows,
// the profile last, then the mail. Each step is idempotent, so an error
// anywhere retries the whole task with the queue's backoff and the retry
// finishes it.
func (s *Service) forget(ctx context.Context, t forgetTask) error {
	m := t.Member
	p, err := s.Profile(ctx, m.Key)
	switch {
	case errors.Is(err, storage.ErrNotFound):
		// Erased already, up to the mail at most.
	case err != nil:
		return err
	case p.DeletedAt == nil:
		// Not closed: a new account under the same key (an OIDC subject
		// signed up again) is not this task's to erase.
		s.log.WarnContext(ctx, "account.forget found the account open; nothing erased", "member", m.Key)
		return nil
	default:
		if err := s.erase(ctx, p, ForgetKind); err != nil {
			return err
		}
	}
	return s.tellDeleted(ctx, t.Mail)
}

// erase runs the deletion's steps for p's member; the queue keeps the
// tasks of the kinds in keep (the task running it).
func (s *Service) erase(ctx context.Context, p ProfileRow, keep ...string) error {
	m := MemberOf(p)
	for _, f := range s.data.Forgetters {
		if err := f.ForgetMember(ctx, m); err != nil {
			return fmt.Errorf("account: forget %s: %T: %w", m.Key, f, err)
		}
	}
	// Tasks the modules queued about them (reminders, notices, keys).
	if err := s.data.Tasks.ForgetMember(ctx, m, keep...); err != nil {
		return fmt.Errorf("account: forget %s: tasks: %w", m.Key, err)
	}
	if err := s.data.Auth.ForgetMember(ctx, m); err != nil {
		return fmt.Errorf("account: forget %s: sign-in rows: %w", m.Key, err)
	}
	if err := s.forgetOwn(ctx, p); err != nil {
		return fmt.Errorf("account: forget %s: the account's rows: %w", m.Key, err)
	}
	s.log.InfoContext(ctx, "account deleted", "member", m.Key)
	return nil
}

// tellDeleted mails done, when there is an address and a mailer.
func (s *Service) tellDeleted(ctx context.Context, done mail.Message) error {
	if done.To == "" || s.data.Mailer == nil {
		return nil
	}
	return s.data.Mailer.Send(ctx, done)
}

// ErrNotClosed refuses to erase an account its owner did not ask to
// delete.
var ErrNotClosed = errors.New("account: the account is not closed: its owner deletes it from their Your data page")

// ForgetClosed erases a closed account at once, as account.forget
// would, and drops that task's rows (a dead one included): an operator's
// repair once the cause of the task's failures is fixed (web forget).
// done is mailed to the account's email when it is over.
func (s *Service) ForgetClosed(ctx context.Context, memberKey string, done mail.Message) error {
	p, err := s.profileToForget(ctx, memberKey)
	if err != nil {
		return err
	}
	if p.DeletedAt == nil {
		return ErrNotClosed
	}
	if err := s.erase(ctx, p); err != nil {
		return err
	}
	done.To, done.Key = p.Email, keyOf("deleted", memberKey)
	return s.tellDeleted(ctx, done)
}

// forgetOwn deletes the account module's rows of p: settings,
// preferences, photos, the directory rows, and the profile last, so a
// run cut short finds it and runs again.
func (s *Service) forgetOwn(ctx context.Context, p ProfileRow) error {
	memberKey := p.PartitionKey
	spk, srk := settingsKey(memberKey)
	ppk, prk := preferencesKey(memberKey)
	dpk, drk := directoryKey(memberKey)
	for _, row := range []struct {
		t      *storage.Table
		pk, rk string
	}{
		{s.settings, spk, srk},
		{s.preferences, ppk, prk},
		{s.directory, dpk, drk},
		{s.directory, peoplePartition, peopleRowKey(memberKey)},
	} {
		if err := storage.Forget(ctx, row.t, row.pk, row.rk); err != nil {
			return err
		}
	}
	if err := s.photos.DeleteAll(ctx, memberKey); err != nil {
		return err
	}
	pk, rk := profileKey(memberKey)
	return storage.Forget(ctx, s.profiles, pk, rk)
}
