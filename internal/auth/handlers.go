package auth

import (
	"context"
	"net/http"
	"regexp"

	"github.com/labstack/echo/v4"

	"github.com/harmony/harmony/internal/i18n"
	"github.com/harmony/harmony/internal/web"
	authview "github.com/harmony/harmony/views/auth"
)

// Values the sign-in flow keeps in the session cookie between the email
// form and the code form; a new session drops everything under this prefix.
const (
	pendingPrefix = "auth.pending."
	pendingEmail  = pendingPrefix + "email"
	pendingNext   = pendingPrefix + "next"
)

// showSignIn offers the sign-in methods. Someone already signed in (not a
// guest) goes straight on.
func (s *Service) showSignIn(c echo.Context) error {
	next := web.LocalPath(c.QueryParam("next"))
	if id := From(c); id.HasAccount() {
		return web.Redirect(c, next)
	}
	// ?email= fills the field in (the demo banner's "sign in as").
	email, _ := NormalizeEmail(c.QueryParam("email"))
	return s.renderSignIn(c, http.StatusOK, authview.SignInProps{Next: next, Email: email})
}

func (s *Service) renderSignIn(c echo.Context, status int, p authview.SignInProps) error {
	ctx := c.Request().Context()
	p.EmailEnabled = s.mailer != nil
	if id := From(c); id != nil && id.Guest {
		p.Guest = id.DisplayName
	}
	if s.oidc != nil {
		name := s.cfg.OIDC.Name
		if name == "" {
			name = i18n.T(ctx, "auth.signin.oidc_default")
		}
		p.OIDC = &authview.OIDCButton{Name: name, Href: oidcStartURL(p.Next)}
	}
	return web.Render(c, status, web.Page{Title: i18n.T(ctx, "auth.signin.title"), Content: authview.SignIn(p)})
}

// codeAddress reads the address a code is to go to. With no mailer
// nothing can be sent (503; the form says mail is off, so msg is ""); a
// malformed address is 422 with its message. status is 0 when the code
// can go.
func (s *Service) codeAddress(ctx context.Context, raw string) (email string, status int, msg string) {
	if s.mailer == nil {
		return "", http.StatusServiceUnavailable, ""
	}
	email, err := NormalizeEmail(raw)
	if err != nil {
		return "", http.StatusUnprocessableEntity, i18n.T(ctx, "auth.error.bad_email")
	}
	return email, 0, ""
}

// sendCode mails a code and moves on to the code form. Whether the email
// has an account makes no difference to the answer.
func (s *Service) sendCode(c echo.Context) error {
	ctx := c.Request().Context()
	next := web.LocalPath(c.FormValue("next"))
	props := authview.SignInProps{Next: next, Email: c.FormValue("email")}
	email, status, msg := s.codeAddress(ctx, props.Email)
	if status != 0 {
		props.EmailError = msg
		return s.renderSignIn(c, status, props)
	}
	return s.mailCode(c, email, map[string]string{pendingEmail: email, pendingNext: next}, "/signin/code", func(status int, msg string) error {
		props.Message = msg
		return s.renderSignIn(c, status, props)
	})
}

// mailCode sends a code to email under the per-IP send limit, keeps
// pending (the address and where to go next) in the session for the code
// form, and goes on to codeForm. A refusal the person can act on (too
// many sends) shows their form again through again, with a status and a
// message.
func (s *Service) mailCode(c echo.Context, email string, pending map[string]string, codeForm string, again func(status int, msg string) error) error {
	ctx := c.Request().Context()
	if !s.sendLimit.Allow(c.RealIP(), s.now()) {
		return again(http.StatusTooManyRequests, i18n.T(ctx, "auth.error.rate_limited"))
	}
	if err := s.SendCode(ctx, email); err != nil {
		return err // ErrMailFailed is a 503 that says so
	}
	sess, err := web.Session(c)
	if err != nil {
		return err
	}
	for k, v := range pending {
		sess.Values[k] = v
	}
	if err := web.SaveSession(c, sess); err != nil {
		return err
	}
	return web.Redirect(c, codeForm)
}

// pending returns the email and next path the code form is for.
func pending(c echo.Context) (email, next string, err error) {
	sess, err := web.Session(c)
	if err != nil {
		return "", "", err
	}
	email, _ = sess.Values[pendingEmail].(string)
	next, _ = sess.Values[pendingNext].(string)
	return email, web.LocalPath(next), nil
}

// showCodeForm asks for the code; without a pending email it starts over.
func (s *Service) showCodeForm(c echo.Context) error {
	email, next, err := pending(c)
	if err != nil {
		return err
	}
	if email == "" {
		return web.Redirect(c, "/signin")
	}
	return s.renderCode(c, http.StatusOK, authview.CodeProps{
		Email: email, Next: next, Message: i18n.T(c.Request().Context(), "auth.code.sent"),
	})
}

func (s *Service) renderCode(c echo.Context, status int, p authview.CodeProps) error {
	return web.Render(c, status, web.Page{Title: i18n.T(c.Request().Context(), "auth.code.title"), Content: authview.Code(p)})
}

// verifyCode signs in with a correct code, or says what was wrong.
func (s *Service) verifyCode(c echo.Context) error {
	ctx := c.Request().Context()
	email, next, err := pending(c)
	if err != nil {
		return err
	}
	if email == "" {
		return web.Redirect(c, "/signin")
	}
	status, msg, err := s.codeAttempt(c, func() error { return s.VerifyCode(ctx, email, c.FormValue("code")) })
	if err != nil {
		return err
	}
	if status != 0 {
		return s.renderCode(c, status, authview.CodeProps{Email: email, Next: next, Error: true, Message: msg})
	}
	return s.CompleteSignIn(c, VerifiedIdentity{Method: MethodCode, Email: email, EmailVerified: true}, next)
}

// signOut ends this browser's session and goes home. The browser also
// drops its copies of the site's pages (Clear-Site-Data), so on a shared
// computer the next person cannot page Back into the account.
func (s *Service) signOut(c echo.Context) error {
	if err := s.SignOut(c); err != nil {
		return err
	}
	c.Response().Header().Set("Clear-Site-Data", `"cache"`)
	return web.Redirect(c, "/")
}

// codePattern finds the sign-in code in a development mail.
var codePattern = regexp.MustCompile(`\b\d{6}\b`)

// showMailbox lists the mail the development server would have sent. It
// holds everyone's sign-in codes, so only this machine may read it; anyone
// else gets the plain 404 of a page that does not exist.
func (s *Service) showMailbox(c echo.Context) error {
	if !web.FromLoopback(c.Request()) {
		return echo.ErrNotFound
	}
	var items []authview.MailboxItem
	for _, m := range s.mailbox.Recent() {
		items = append(items, authview.MailboxItem{
			To: m.To, Subject: m.Subject, Text: m.Text, At: m.At,
			Code: codePattern.FindString(m.Subject + "\n" + m.Text),
		})
	}
	return web.Render(c, http.StatusOK, web.Page{
		Title:   i18n.T(c.Request().Context(), "auth.mailbox.title"),
		Content: authview.Mailbox(authview.MailboxProps{Items: items}),
	})
}
