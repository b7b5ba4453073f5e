package auth

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/harmony/harmony/internal/i18n"
	"github.com/harmony/harmony/internal/storage"
	"github.com/harmony/harmony/internal/web"
)

// Sign-in methods, as VerifiedIdentity.Method names them.
const (
	MethodOIDC = "oidc"
	MethodCode = "code"
)

// VerifiedIdentity is what a sign-in method proved.
type VerifiedIdentity struct {
	// Method is MethodOIDC or MethodCode.
	Method string
	// Subject is the OIDC sub ("" for email codes).
	Subject string
	// Email is "" if the provider gave none.
	Email         string
	EmailVerified bool
	// Name is a display name hint ("" if none).
	Name string
}

// accountRow links a verified email to its account, in table
// AccountsByEmail, so every sign-in method reaches the same memberKey.
type accountRow struct {
	UserKey   string    `table:"PartitionKey"`
	Kind      string    `table:"RowKey"`
	MemberKey string    `table:"MemberKey"`
	Email     string    `table:"Email"`
	Method    string    `table:"Method"`
	CreatedAt time.Time `table:"CreatedAt"`
}

// accountKey is the AccountsByEmail row's keys.
func accountKey(userKey string) (pk, rk string) { return userKey, "account" }

// CompleteSignIn finishes any sign-in method: it resolves the account
// (AccountsByEmail links a verified email to its memberKey; otherwise
// OIDC gives auth:{sub} and a code a new auth:{ulid}), refuses disabled
// accounts, moves a guest's belongings to the account, starts a new
// session (fresh id, cookie and CSRF token; the old row deleted) and
// redirects to next, if it is on this site.
func (s *Service) CompleteSignIn(c echo.Context, v VerifiedIdentity, next string) error {
	ctx := c.Request().Context()
	memberKey, email, err := s.resolveAccount(ctx, v)
	if err != nil {
		return err
	}
	// A guest signing in keeps the name they chose when they joined
	// ("Grandpa Hans", not "hans" from the email), unless the provider
	// names them.
	name := strings.TrimSpace(v.Name)
	if prev := From(c); name == "" && prev != nil && prev.Guest {
		name = prev.DisplayName
	}
	st, err := s.profiles.OnSignIn(ctx, memberKey, email, name)
	if err != nil {
		return fmt.Errorf("auth: profile of %s: %w", memberKey, err)
	}
	if err := refusal(ctx, memberKey, st); err != nil {
		return err
	}
	if prev := From(c); prev != nil && prev.Guest {
		for _, u := range s.upgraders {
			if err := u.UpgradeGuest(ctx, prev.MemberKey, memberKey); err != nil {
				return fmt.Errorf("auth: upgrade guest %s: %w", prev.MemberKey, err)
			}
		}
	}
	row, err := s.startSession(c, memberKey, email, st, false)
	if err != nil {
		return err
	}
	// Asked again now that the session is written: an admin's disable or
	// role change that landed between the first answer and the session
	// ran its revoke or refresh before there was a session to find. One
	// landing after this is the admin's own to apply.
	if now, err := s.profiles.OnSignIn(ctx, memberKey, email, name); err != nil {
		return fmt.Errorf("auth: profile of %s: %w", memberKey, err)
	} else if refused := refusal(ctx, memberKey, now); refused != nil {
		if err := s.deleteSession(ctx, memberKey, row.ID); err != nil {
			return err
		}
		return refused
	} else if !now.same(st) {
		if err := s.RefreshSessions(ctx, memberKey, now); err != nil {
			return err
		}
	}
	s.log.InfoContext(ctx, "signed in", "member", memberKey, "method", v.Method)
	return web.Redirect(c, web.LocalPath(next))
}

// refusal is why an account in state st may not sign in (403), nil when
// it may: one being deleted says so, a disabled one that it is disabled.
func refusal(ctx context.Context, memberKey string, st ProfileState) error {
	switch {
	case st.Closing:
		return web.Forbidden(i18n.T(ctx, "auth.error.closing"), fmt.Errorf("auth: %s is being deleted", memberKey))
	case !st.Enabled:
		return web.Forbidden(i18n.T(ctx, "auth.error.disabled"), fmt.Errorf("auth: %s is disabled", memberKey))
	}
	return nil
}

// EnsureAccount is the account a first sign-in by code with email would
// make (or the one the address already has), without a session: for
// demo content and operators' tools. It returns the memberKey.
func (s *Service) EnsureAccount(ctx context.Context, email, displayName string) (string, error) {
	memberKey, email, err := s.resolveAccount(ctx, VerifiedIdentity{Method: MethodCode, Email: email, EmailVerified: true, Name: displayName})
	if err != nil {
		return "", err
	}
	if _, err := s.profiles.OnSignIn(ctx, memberKey, email, displayName); err != nil {
		return "", fmt.Errorf("auth: profile of %s: %w", memberKey, err)
	}
	return memberKey, nil
}

// resolveAccount finds or mints the memberKey a verified identity signs in
// to, and returns the verified email ("" when there is none).
func (s *Service) resolveAccount(ctx context.Context, v VerifiedIdentity) (memberKey, email string, err error) {
	if v.EmailVerified {
		// A provider's address that is not one plain address counts as none.
		email, _ = NormalizeEmail(v.Email)
	}
	switch v.Method {
	case MethodOIDC:
		if v.Subject == "" {
			return "", "", errors.New("auth: OIDC identity without a subject")
		}
	case MethodCode:
		if email == "" {
			return "", "", errors.New("auth: code sign-in without a verified email")
		}
	default:
		return "", "", fmt.Errorf("auth: unknown sign-in method %q", v.Method)
	}
	if v.Method == MethodOIDC {
		// The provider's subject is the stable identity: an account it
		// reached once (through its email) stays its account, whatever
		// email the provider reports later.
		mk, err := s.accountBySubject(ctx, v.Subject)
		switch {
		case err == nil:
			if email == "" {
				return mk, "", nil
			}
			owner, err := s.linkEmail(ctx, email, mk, v.Method)
			if err != nil {
				return "", "", err
			}
			if owner != mk {
				email = "" // another account's: not this one's to claim
			}
			return mk, email, nil
		case !errors.Is(err, storage.ErrNotFound):
			return "", "", err
		}
	}
	if email != "" {
		if mk, err := s.accountByEmail(ctx, email); err == nil {
			if v.Method == MethodOIDC && mk != AuthMemberKey(v.Subject) {
				if err := s.linkSubject(ctx, v.Subject, mk); err != nil {
					return "", "", err
				}
			}
			return mk, email, nil
		} else if !errors.Is(err, storage.ErrNotFound) {
			return "", "", err
		}
	}
	if v.Method == MethodOIDC {
		memberKey = AuthMemberKey(v.Subject)
	} else {
		memberKey = codeMemberKey()
	}
	if email == "" {
		return memberKey, "", nil
	}
	// Two first sign-ins may race; the first link wins for both.
	memberKey, err = s.linkEmail(ctx, email, memberKey, v.Method)
	return memberKey, email, err
}

// linkEmail links the verified email to memberKey in AccountsByEmail,
// unless an account holds it already, and returns the account that holds
// it now.
func (s *Service) linkEmail(ctx context.Context, email, memberKey, method string) (string, error) {
	pk, rk := accountKey(UserKey(email))
	_, err := storage.Insert(ctx, s.accounts, accountRow{UserKey: pk, Kind: rk, MemberKey: memberKey, Email: email, Method: method, CreatedAt: s.now()})
	if errors.Is(err, storage.ErrExists) {
		return s.accountByEmail(ctx, email)
	}
	if err != nil {
		return "", err
	}
	return memberKey, nil
}

// subjectRow links an OIDC subject to the account it first reached
// through its email (one whose memberKey is not the subject's own), in
// AccountsByEmail: PK the subject's own memberKey, RK "subject".
type subjectRow struct {
	PartitionKey string    `table:"PartitionKey"`
	RowKey       string    `table:"RowKey"`
	MemberKey    string    `table:"MemberKey"`
	CreatedAt    time.Time `table:"CreatedAt"`
}

const subjectRowKey = "subject"

// accountBySubject is the account an OIDC subject signs in to: the one
// it was linked to, else storage.ErrNotFound. A subject that made its
// own account (AuthMemberKey) has no link, and needs none.
func (s *Service) accountBySubject(ctx context.Context, subject string) (string, error) {
	row, err := storage.Get[subjectRow](ctx, s.accounts, AuthMemberKey(subject), subjectRowKey)
	if err != nil {
		return "", err
	}
	return row.MemberKey, nil
}

// linkSubject links subject to memberKey; a link made already stays.
func (s *Service) linkSubject(ctx context.Context, subject, memberKey string) error {
	_, err := storage.Insert(ctx, s.accounts, subjectRow{PartitionKey: AuthMemberKey(subject), RowKey: subjectRowKey, MemberKey: memberKey, CreatedAt: s.now()})
	if errors.Is(err, storage.ErrExists) {
		return nil
	}
	return err
}

// MemberByEmail is the memberKey of the account that verified email;
// storage.ErrNotFound when none has.
func (s *Service) MemberByEmail(ctx context.Context, email string) (string, error) {
	email, err := NormalizeEmail(email)
	if err != nil {
		return "", storage.ErrNotFound
	}
	return s.accountByEmail(ctx, email)
}

func (s *Service) accountByEmail(ctx context.Context, email string) (string, error) {
	pk, rk := accountKey(UserKey(email))
	row, err := storage.Get[accountRow](ctx, s.accounts, pk, rk)
	if err != nil {
		return "", err
	}
	if row.MemberKey == "" {
		return "", fmt.Errorf("auth: AccountsByEmail %s has no member key", pk)
	}
	return row.MemberKey, nil
}

// maxGuestName bounds a guest's self-chosen name, in characters.
const maxGuestName = 80

// SignInGuest gives the request a guest identity (guest:{gsid}, a random
// 128-bit id) in a new session, for someone who joins by link without an
// account. A request that already has an identity keeps it.
func (s *Service) SignInGuest(c echo.Context, displayName string) (*Identity, error) {
	if id := From(c); id != nil {
		return id, nil
	}
	name := strings.TrimSpace(displayName)
	if r := []rune(name); len(r) > maxGuestName {
		name = string(r[:maxGuestName])
	}
	if name == "" {
		name = i18n.T(c.Request().Context(), "auth.guest.name")
	}
	if _, err := s.startSession(c, GuestMemberKey(newRandomID()), "", ProfileState{DisplayName: name, Enabled: true}, true); err != nil {
		return nil, err
	}
	return From(c), nil
}

// UserLanguage is the signed-in user's language setting, for
// web.Deps.UserLanguage.
func (s *Service) UserLanguage(c echo.Context) (i18n.Lang, bool) {
	id := From(c)
	if id == nil {
		return "", false
	}
	return i18n.ParseLang(id.Language)
}
