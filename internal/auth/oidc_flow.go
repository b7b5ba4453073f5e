package auth

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"time"

	"github.com/coreos/go-oidc/v3/oidc"
	"github.com/gorilla/sessions"
	"github.com/labstack/echo/v4"
	"golang.org/x/oauth2"

	"github.com/harmony/harmony/internal/fault"
	"github.com/harmony/harmony/internal/web"
)

const (
	// oidcSessionKey holds the browser's sign-ins in progress.
	oidcSessionKey = "auth.oidc"
	// oidcFlowMaxAge is how long a started sign-in can come back.
	oidcFlowMaxAge = 10 * time.Minute
	// oidcMaxPending sign-ins may be in progress at once (several tabs);
	// the oldest is dropped beyond that, keeping the cookie small.
	oidcMaxPending = 3
	// oidcMaxNext bounds the return address kept in the cookie.
	oidcMaxNext = 512
)

// oidcFlow is one sign-in in progress, kept in the browser's session from
// /auth/oidc/start until the callback consumes it.
type oidcFlow struct {
	State    string `json:"s"`
	Nonce    string `json:"n"`
	Verifier string `json:"v"` // PKCE code_verifier
	Next     string `json:"x"`
	Created  int64  `json:"t"` // unix seconds
}

// Why a callback is refused; the log sees these, the user a clear message.
var (
	errOIDCNoState      = errors.New("oidc: callback without a state")
	errOIDCUnknownState = errors.New("oidc: state matches no sign-in in progress (wrong, expired or used)")
	errOIDCNoCode       = errors.New("oidc: callback without a code")
	errOIDCNoIDToken    = errors.New("oidc: token response has no id_token")
	errOIDCNonce        = errors.New("oidc: ID token nonce does not match the sign-in's")
	errOIDCNoSubject    = errors.New("oidc: ID token has no subject")
)

// A sign-in through the provider that did not work out for a reason the
// person can act on (start again, or sign in another way) is a
// fault.Error: shown on the sign-in page, with its status and message.

// oidcBadState: missing, wrong, expired or replayed state.
func oidcBadState(cause error) error {
	return fault.Wrap(http.StatusBadRequest, "oidc.error.state", cause)
}

// oidcRejected: the answer from the provider does not check out.
func oidcRejected(cause error) error {
	return fault.Wrap(http.StatusBadRequest, "oidc.error.rejected", cause)
}

// oidcUnavailable: the provider cannot be reached right now.
func oidcUnavailable(cause error) error {
	return fault.Wrap(http.StatusServiceUnavailable, "oidc.error.unavailable", cause)
}

// oidcProviderError: the provider sent the person back with ?error=. Its
// error_description is not shown: it may be in another language, or
// written by whoever crafted the link.
func oidcProviderError(code string) error {
	cause := fmt.Errorf("oidc: provider returned error %q", code)
	if code == "access_denied" {
		// They cancelled, or the provider does not let them use this app.
		return fault.Wrap(http.StatusForbidden, "oidc.error.denied", cause)
	}
	return fault.Wrap(http.StatusBadRequest, "oidc.error.provider", cause)
}

// beginOIDC starts a sign-in: it records a fresh state, nonce and PKCE
// verifier in the session and returns the provider's authorization URL.
func (s *Service) beginOIDC(c echo.Context, next string) (string, error) {
	ctx := c.Request().Context()
	provider, err := s.oidc.discover(ctx)
	if err != nil {
		return "", oidcUnavailable(err)
	}
	sess, err := web.Session(c)
	if err != nil {
		return "", err
	}
	next = web.LocalPath(next)
	if len(next) > oidcMaxNext {
		next = "/"
	}
	now := s.now()
	flow := oidcFlow{
		State:    rand.Text(),
		Nonce:    rand.Text(),
		Verifier: oauth2.GenerateVerifier(),
		Next:     next,
		Created:  now.Unix(),
	}
	flows := append(liveOIDCFlows(sess, now), flow)
	if len(flows) > oidcMaxPending {
		flows = flows[len(flows)-oidcMaxPending:]
	}
	if err := saveOIDCFlows(c, sess, flows); err != nil {
		return "", err
	}
	return s.oidc.oauth2Config(provider).AuthCodeURL(flow.State,
		oidc.Nonce(flow.Nonce),
		oauth2.S256ChallengeOption(flow.Verifier),
	), nil
}

// finishOIDC checks the provider's answer and returns who signed in and
// where they were going (next is "/" when the sign-in is unknown). The
// state is single use: it leaves the session, and the cookie is rewritten,
// before the code is exchanged, so a replayed callback finds nothing.
func (s *Service) finishOIDC(c echo.Context) (v VerifiedIdentity, next string, err error) {
	q := c.QueryParams()
	sess, err := web.Session(c)
	if err != nil {
		return v, "/", err
	}
	flows := liveOIDCFlows(sess, s.now())
	flow, found := takeOIDCFlow(&flows, q.Get("state"))
	next = "/"
	if found {
		next = flow.Next
		if err := saveOIDCFlows(c, sess, flows); err != nil {
			return v, next, err
		}
	}
	switch {
	case q.Get("error") != "":
		// Shown even without a matching state: it changes nothing.
		return v, next, oidcProviderError(q.Get("error"))
	case q.Get("state") == "":
		return v, next, oidcBadState(errOIDCNoState)
	case !found:
		return v, next, oidcBadState(errOIDCUnknownState)
	case q.Get("code") == "":
		return v, next, oidcRejected(errOIDCNoCode)
	}
	v, err = s.redeemOIDCCode(c.Request().Context(), q.Get("code"), flow)
	return v, next, err
}

// redeemOIDCCode exchanges the code (with the PKCE verifier), verifies the
// ID token (signature, issuer, audience, expiry, then the nonce, which
// go-oidc leaves to us) and reads the identity from it.
func (s *Service) redeemOIDCCode(ctx context.Context, code string, flow oidcFlow) (VerifiedIdentity, error) {
	provider, err := s.oidc.discover(ctx)
	if err != nil {
		return VerifiedIdentity{}, oidcUnavailable(err)
	}
	tok, err := s.oidc.oauth2Config(provider).Exchange(s.oidc.httpContext(ctx), code, oauth2.VerifierOption(flow.Verifier))
	if err != nil {
		if _, ok := errors.AsType[*oauth2.RetrieveError](err); ok {
			return VerifiedIdentity{}, oidcRejected(fmt.Errorf("oidc: token exchange refused: %w", err))
		}
		return VerifiedIdentity{}, oidcUnavailable(fmt.Errorf("oidc: token exchange: %w", err))
	}
	raw, _ := tok.Extra("id_token").(string)
	if raw == "" {
		return VerifiedIdentity{}, oidcRejected(errOIDCNoIDToken)
	}
	verifier := provider.Verifier(&oidc.Config{ClientID: s.oidc.clientID, Now: s.now})
	idToken, err := verifier.Verify(ctx, raw)
	if err != nil {
		return VerifiedIdentity{}, oidcRejected(fmt.Errorf("oidc: ID token: %w", err))
	}
	if subtle.ConstantTimeCompare([]byte(idToken.Nonce), []byte(flow.Nonce)) != 1 {
		return VerifiedIdentity{}, oidcRejected(errOIDCNonce)
	}
	if idToken.Subject == "" {
		return VerifiedIdentity{}, oidcRejected(errOIDCNoSubject)
	}
	var claims idClaims
	if err := idToken.Claims(&claims); err != nil {
		return VerifiedIdentity{}, oidcRejected(fmt.Errorf("oidc: ID token claims: %w", err))
	}
	if claims.Email == "" || claims.displayName() == "" {
		s.mergeUserInfo(ctx, provider, tok, idToken.Subject, &claims)
	}
	v := VerifiedIdentity{Method: MethodOIDC, Subject: idToken.Subject, Name: claims.displayName()}
	// An address that is not one plain email is dropped, not refused: the
	// subject alone still signs the person in.
	if email, err := NormalizeEmail(claims.Email); err == nil {
		v.Email = email
		v.EmailVerified = bool(claims.EmailVerified)
	}
	return v, nil
}

// mergeUserInfo fills the email and name from the provider's userinfo
// endpoint when the ID token lacks them: the OIDC spec lets a provider put
// profile and email claims only there when it issues an access token
// (oidc-provider does by default; Google, Entra ID and Keycloak copy them
// into the ID token). The answer counts only if its sub is the ID token's.
// A failure is logged and the sign-in goes on with the ID token's claims:
// the subject alone still identifies the person.
func (s *Service) mergeUserInfo(ctx context.Context, provider *oidc.Provider, tok *oauth2.Token, subject string, claims *idClaims) {
	if provider.UserInfoEndpoint() == "" {
		return
	}
	info, err := provider.UserInfo(oidc.ClientContext(ctx, s.oidc.http), oauth2.StaticTokenSource(tok))
	if err != nil {
		s.log.Warn("oidc: userinfo request failed; signing in without its claims", "err", err)
		return
	}
	if info.Subject != subject {
		s.log.Warn("oidc: userinfo answered for another subject; ignored")
		return
	}
	var extra idClaims
	if err := info.Claims(&extra); err != nil {
		s.log.Warn("oidc: unreadable userinfo claims; ignored", "err", err)
		return
	}
	if claims.Email == "" {
		claims.Email, claims.EmailVerified = extra.Email, extra.EmailVerified
	}
	if claims.displayName() == "" {
		claims.Name, claims.GivenName, claims.FamilyName = extra.Name, extra.GivenName, extra.FamilyName
	}
}

// liveOIDCFlows reads the session's sign-ins in progress, dropping expired
// ones. An unreadable value counts as none.
func liveOIDCFlows(sess *sessions.Session, now time.Time) []oidcFlow {
	raw, _ := sess.Values[oidcSessionKey].(string)
	var flows []oidcFlow
	if raw == "" || json.Unmarshal([]byte(raw), &flows) != nil {
		return nil
	}
	live := flows[:0]
	for _, f := range flows {
		age := now.Sub(time.Unix(f.Created, 0))
		if age >= 0 && age < oidcFlowMaxAge {
			live = append(live, f)
		}
	}
	return live
}

// takeOIDCFlow removes and returns the flow whose state equals state,
// comparing in constant time.
func takeOIDCFlow(flows *[]oidcFlow, state string) (oidcFlow, bool) {
	if state == "" {
		return oidcFlow{}, false
	}
	for i, f := range *flows {
		if subtle.ConstantTimeCompare([]byte(f.State), []byte(state)) == 1 {
			*flows = append((*flows)[:i], (*flows)[i+1:]...)
			return f, true
		}
	}
	return oidcFlow{}, false
}

func saveOIDCFlows(c echo.Context, sess *sessions.Session, flows []oidcFlow) error {
	if len(flows) == 0 {
		delete(sess.Values, oidcSessionKey)
	} else {
		raw, err := json.Marshal(flows)
		if err != nil {
			return err
		}
		sess.Values[oidcSessionKey] = string(raw)
	}
	if err := web.SaveSession(c, sess); err != nil {
		return fmt.Errorf("oidc: save session: %w", err)
	}
	return nil
}

// oidcStartURL is the link that starts a sign-in through the provider and
// comes back to next.
func oidcStartURL(next string) string {
	next = web.LocalPath(next)
	if next == "/" {
		return "/auth/oidc/start"
	}
	return "/auth/oidc/start?" + url.Values{"next": {next}}.Encode()
}
