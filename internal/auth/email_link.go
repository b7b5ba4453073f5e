package auth

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/harmony/harmony/internal/i18n"
	"github.com/harmony/harmony/internal/storage"
	"github.com/harmony/harmony/internal/web"
	authview "github.com/harmony/harmony/views/auth"
)

// Accounts without a verified email (an Entra ID account, or any provider
// that sends email_verified false) have no email to derive a userKey from.
// They get MemberUserKey(memberKey) instead, so every table keyed by userKey
// (GroupMembers, UserGroups, AI usage) works for them, and nobody's key is
// ever empty. When they add and verify an address in account settings (by
// a code, like sign-in), ConfirmEmail claims it in AccountsByEmail and the
// registered EmailLinkers move what they hold from the derived userKey to
// the email's, where invitations to that address are waiting.

// MemberUserKey is the userKey of an account without a verified email:
// hex(sha256("member|" + memberKey)). It has the shape of an email's
// userKey, and cannot equal one: no normalized address starts with
// "member|".
func MemberUserKey(memberKey string) string {
	sum := sha256.Sum256([]byte("member|" + memberKey))
	return hex.EncodeToString(sum[:])
}

// EmailLinker moves what a module holds under an account's derived userKey
// (MemberUserKey) to the userKey of the email the account has just
// verified. It must be idempotent: a failed link is finished by trying
// again.
type EmailLinker interface {
	LinkEmail(ctx context.Context, memberKey, email, fromUserKey string) error
}

// OnEmailLinked registers l to run when an account verifies its first
// email. Call it while wiring, before serving; linkers run in order.
func (s *Service) OnEmailLinked(l EmailLinker) {
	s.linkers = append(s.linkers, l)
}

// Errors of LinkEmail a person can act on.
var (
	ErrEmailTaken = errors.New("auth: the address belongs to another account")
	ErrHasEmail   = errors.New("auth: the account has a verified address already")
)

// ConfirmEmail checks the code sent to email and makes it the verified
// address of the account memberKey, which has none: the address is claimed
// in AccountsByEmail (refused with ErrEmailTaken when another account holds
// it), the linkers move the account's memberships, and its sessions learn
// the address, so the next request carries the new userKey. The code
// errors are VerifyCode's.
func (s *Service) ConfirmEmail(ctx context.Context, memberKey, email, code string) error {
	if err := s.VerifyCode(ctx, email, code); err != nil {
		return err
	}
	pk, rk := accountKey(UserKey(email))
	e, err := storage.Marshal(accountRow{UserKey: pk, Kind: rk, MemberKey: memberKey, Email: email, Method: MethodCode, CreatedAt: s.now()})
	if err != nil {
		return err
	}
	if _, err := s.accounts.Insert(ctx, e); errors.Is(err, storage.ErrExists) {
		// Ours already when a link failed part way and is tried again.
		owner, err := s.accountByEmail(ctx, email)
		if err != nil {
			return err
		}
		if owner != memberKey {
			return ErrEmailTaken
		}
	} else if err != nil {
		return err
	}
	for _, l := range s.linkers {
		if err := l.LinkEmail(ctx, memberKey, email, MemberUserKey(memberKey)); err != nil {
			return fmt.Errorf("auth: link %s to %s: %w", memberKey, email, err)
		}
	}
	rows, err := s.memberSessions(ctx, memberKey)
	if err != nil {
		return err
	}
	for _, r := range rows {
		pk, rk := sessionKey(r.MemberKey, r.ID)
		e := storage.Entity{PartitionKey: pk, RowKey: rk, Props: map[string]any{"Email": email}}
		if _, err := s.sessions.Update(ctx, e, storage.Merge, storage.AnyETag); err != nil && !errors.Is(err, storage.ErrNotFound) {
			return err
		}
	}
	s.log.InfoContext(ctx, "email linked", "member", memberKey)
	return nil
}

// pendingLinkEmail is the session value holding the address a link code
// went to.
const pendingLinkEmail = pendingPrefix + "link"

// emailLinkRoutes registers the add-an-address pages under account
// settings.
func (s *Service) emailLinkRoutes(e *echo.Echo) {
	e.GET("/account/email", s.showAddEmail, RequireAccount)
	e.POST("/account/email", s.sendLinkCode, RequireAccount)
	e.GET("/account/email/code", s.showLinkCode, RequireAccount)
	e.POST("/account/email/code", s.verifyLinkCode, RequireAccount)
}

func (s *Service) renderAddEmail(c echo.Context, status int, p authview.AddEmailProps) error {
	id := From(c)
	p.Current = id.Email
	p.MailAvailable = s.mailer != nil
	return web.Render(c, status, web.Page{Title: i18n.T(c.Request().Context(), "auth.link.title"), Content: authview.AddEmail(p)})
}

// showAddEmail is GET /account/email: the address and, when there is none,
// the form to add one.
func (s *Service) showAddEmail(c echo.Context) error {
	return s.renderAddEmail(c, http.StatusOK, authview.AddEmailProps{})
}

// sendLinkCode is POST /account/email: it mails a code to the address and
// moves on to the code form.
func (s *Service) sendLinkCode(c echo.Context) error {
	ctx := c.Request().Context()
	p := authview.AddEmailProps{Email: c.FormValue("email")}
	if From(c).Email != "" {
		return web.NewError(http.StatusConflict, i18n.T(ctx, "auth.link.has_email"), ErrHasEmail)
	}
	email, status, msg := s.codeAddress(ctx, p.Email)
	if status != 0 {
		p.EmailError = msg
		return s.renderAddEmail(c, status, p)
	}
	// Whether the address has an account already is not said here, as
	// sign-in does not say it: the code goes out either way, and only
	// who holds the mailbox learns it, when the code is checked
	// (ConfirmEmail's ErrEmailTaken).
	return s.mailCode(c, email, map[string]string{pendingLinkEmail: email}, "/account/email/code", func(status int, msg string) error {
		p.Message = msg
		return s.renderAddEmail(c, status, p)
	})
}

// pendingLink is the address the link code went to, "" when none did.
func pendingLink(c echo.Context) (string, error) {
	sess, err := web.Session(c)
	if err != nil {
		return "", err
	}
	email, _ := sess.Values[pendingLinkEmail].(string)
	return email, nil
}

// showLinkCode is GET /account/email/code.
func (s *Service) showLinkCode(c echo.Context) error {
	email, err := pendingLink(c)
	if err != nil {
		return err
	}
	if email == "" || From(c).Email != "" {
		return web.Redirect(c, "/account/email")
	}
	return s.renderAddEmail(c, http.StatusOK, authview.AddEmailProps{Email: email, CodeSent: true,
		Message: i18n.T(c.Request().Context(), "auth.code.sent")})
}

// verifyLinkCode is POST /account/email/code: a right code links the
// address; a wrong one says what was wrong, as sign-in does.
func (s *Service) verifyLinkCode(c echo.Context) error {
	ctx := c.Request().Context()
	email, err := pendingLink(c)
	if err != nil {
		return err
	}
	id := From(c)
	if email == "" || id.Email != "" {
		return web.Redirect(c, "/account/email")
	}
	p := authview.AddEmailProps{Email: email, CodeSent: true, Error: true}
	status, msg, err := s.codeAttempt(c, func() error { return s.ConfirmEmail(ctx, id.MemberKey, email, c.FormValue("code")) })
	if errors.Is(err, ErrEmailTaken) {
		status, msg, err = http.StatusConflict, i18n.T(ctx, "auth.link.taken"), nil
	}
	if err != nil {
		return err
	}
	if status != 0 {
		p.Message = msg
		return s.renderAddEmail(c, status, p)
	}
	sess, err := web.Session(c)
	if err != nil {
		return err
	}
	delete(sess.Values, pendingLinkEmail)
	if err := web.SaveSession(c, sess); err != nil {
		return err
	}
	return web.FlashRedirect(c, "auth.link.done", "/account/email")
}

// codeAttempt runs try, a check of a typed code (VerifyCode, or LinkEmail
// which calls it), under the per-IP limits: every attempt takes from
// verifyLimit, and a wrong one from wrongCodes. The wrong-code token is
// taken before the check and given back when the code was not wrong, so
// guesses sent at once cannot all be checked while none has counted.
// A refusal the person can act on comes back as a status and a message;
// other errors as err.
func (s *Service) codeAttempt(c echo.Context, try func() error) (status int, msg string, err error) {
	ctx, ip, now := c.Request().Context(), c.RealIP(), s.now()
	giveBack, ok := s.wrongCodes.Take(ip, now)
	if ok && !s.verifyLimit.Allow(ip, now) {
		giveBack()
		ok = false
	}
	if !ok {
		return http.StatusTooManyRequests, i18n.T(ctx, "auth.error.rate_limited"), nil
	}
	err = try()
	if !errors.Is(err, ErrCodeWrong) && !errors.Is(err, ErrCodeBurned) {
		giveBack()
	}
	if left, ok := AttemptsLeft(err); ok {
		return http.StatusUnprocessableEntity, i18n.N(ctx, "auth.error.code_wrong", left), nil
	}
	if status, msg, ok := web.Refused(ctx, err); ok {
		return status, msg, nil // not six digits, burnt, expired, no code
	}
	return 0, "", err
}
