// Package oidctest is an in-process OpenID Connect provider for Go tests.
// It serves discovery, a JWKS, an authorization endpoint that signs the
// user in at once (redirecting back with a code) and a token endpoint that
// returns an RS256-signed ID token. The test decides who signs in and how
// the ID token is made, so it can also forge bad tokens: a foreign signing
// key, the wrong audience or issuer, an expired token, a different nonce.
//
// The provider checks what a real one checks: the client's credentials,
// that the code is used once and by the redirect URI it was issued for, and
// PKCE: a code issued for an S256 challenge is only redeemed with the
// matching code_verifier, and an authorization request without an S256
// challenge is refused. So a sign-in that works proves PKCE S256 was sent.
package oidctest

import (
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	jose "github.com/go-jose/go-jose/v4"
)

// Login is who the next authorization signs in, and how its ID token is
// made. The zero value of each "tweak" field makes a correct token.
type Login struct {
	Subject       string
	Email         string
	EmailVerified bool
	Name          string

	// Error, when set, makes /authorize send the browser back with
	// ?error=Error (e.g. "access_denied") instead of a code.
	Error string

	// Audience replaces the client id in "aud".
	Audience string
	// Issuer replaces the provider's URL in "iss".
	Issuer string
	// Nonce replaces the nonce the client sent; NoNonce leaves it out.
	Nonce   string
	NoNonce bool
	// Expired makes a token whose "exp" has passed.
	Expired bool
	// ForeignKey signs with a key the JWKS does not publish, under the
	// published key's id, as a forger would.
	ForeignKey bool
	// ClaimsOnlyInUserInfo leaves email and name out of the ID token and
	// serves them from /userinfo only, as the OIDC spec allows.
	ClaimsOnlyInUserInfo bool
	// UserInfoSubject replaces the subject /userinfo answers with.
	UserInfoSubject string
}

// Provider is a running test provider. Its URL is the issuer.
type Provider struct {
	// URL is the issuer and the base of every endpoint.
	URL          string
	ClientID     string
	ClientSecret string

	t      testing.TB
	server *httptest.Server

	mu            sync.Mutex
	now           func() time.Time
	login         Login
	discoveryDown bool
	grants        map[string]grant
	accessTokens  map[string]Login
	authorizes    []url.Values
	tokens        []url.Values
}

// grant is an issued authorization code, waiting to be redeemed.
type grant struct {
	redirectURI string
	challenge   string
	nonce       string
	login       Login
}

const keyID = "oidctest-key"

// Keys are slow to make, so every provider in the test binary shares one
// signing key and one foreign key; each provider still has its own issuer.
var (
	signingKey = sync.OnceValue(func() *rsa.PrivateKey { return newKey() })
	foreignKey = sync.OnceValue(func() *rsa.PrivateKey { return newKey() })
)

func newKey() *rsa.PrivateKey {
	k, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		panic(err) // only in tests, and the platform's CSPRNG never fails
	}
	return k
}

// New starts a provider for one client, closed when the test ends. An
// empty clientSecret makes it a public client (PKCE only, no secret).
func New(t testing.TB, clientID, clientSecret string) *Provider {
	t.Helper()
	p := &Provider{
		ClientID:     clientID,
		ClientSecret: clientSecret,
		t:            t,
		now:          time.Now,
		grants:       map[string]grant{},
		accessTokens: map[string]Login{},
		login:        Login{Subject: "user-1", Email: "user1@example.org", EmailVerified: true, Name: "User One"},
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /.well-known/openid-configuration", p.discovery)
	mux.HandleFunc("GET /jwks", p.jwks)
	mux.HandleFunc("GET /authorize", p.authorize)
	mux.HandleFunc("POST /token", p.token)
	mux.HandleFunc("GET /userinfo", p.userinfo)
	p.server = httptest.NewServer(mux)
	p.URL = p.server.URL
	t.Cleanup(p.server.Close)
	return p
}

// SetLogin decides who the next authorizations sign in and how their ID
// tokens are made.
func (p *Provider) SetLogin(l Login) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.login = l
}

// SetNow sets the provider's clock, for "iat" and "exp"; use the same
// clock as the code under test.
func (p *Provider) SetNow(now func() time.Time) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.now = now
}

// SetDiscoveryDown makes discovery answer 503 (true) or work again (false),
// as a provider that is briefly unreachable.
func (p *Provider) SetDiscoveryDown(down bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.discoveryDown = down
}

// AuthorizeRequests returns the query of every /authorize request so far.
func (p *Provider) AuthorizeRequests() []url.Values {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]url.Values(nil), p.authorizes...)
}

// TokenRequests returns the form of every /token request so far.
func (p *Provider) TokenRequests() []url.Values {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]url.Values(nil), p.tokens...)
}

func (p *Provider) discovery(w http.ResponseWriter, _ *http.Request) {
	p.mu.Lock()
	down := p.discoveryDown
	p.mu.Unlock()
	if down {
		http.Error(w, "down for maintenance", http.StatusServiceUnavailable)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{
		"issuer":                                p.URL,
		"authorization_endpoint":                p.URL + "/authorize",
		"token_endpoint":                        p.URL + "/token",
		"jwks_uri":                              p.URL + "/jwks",
		"userinfo_endpoint":                     p.URL + "/userinfo",
		"response_types_supported":              []string{"code"},
		"subject_types_supported":               []string{"public"},
		"id_token_signing_alg_values_supported": []string{"RS256"},
		"scopes_supported":                      []string{"openid", "email", "profile"},
		"code_challenge_methods_supported":      []string{"S256"},
		"token_endpoint_auth_methods_supported": []string{"client_secret_basic", "client_secret_post", "none"},
	})
}

func (p *Provider) jwks(w http.ResponseWriter, _ *http.Request) {
	writeJSON(w, http.StatusOK, jose.JSONWebKeySet{Keys: []jose.JSONWebKey{{
		Key: &signingKey().PublicKey, KeyID: keyID, Algorithm: string(jose.RS256), Use: "sig",
	}}})
}

// authorize signs the configured user in without a page: it checks the
// request and redirects back to the client with a code (or an error).
func (p *Provider) authorize(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	p.mu.Lock()
	p.authorizes = append(p.authorizes, q)
	login := p.login
	p.mu.Unlock()

	redirectURI := q.Get("redirect_uri")
	back, err := url.Parse(redirectURI)
	if redirectURI == "" || err != nil || !back.IsAbs() {
		http.Error(w, "bad redirect_uri", http.StatusBadRequest)
		return
	}
	if q.Get("client_id") != p.ClientID {
		http.Error(w, "unknown client", http.StatusBadRequest)
		return
	}
	fail := func(code, description string) {
		v := url.Values{"error": {code}, "error_description": {description}}
		if s := q.Get("state"); s != "" {
			v.Set("state", s)
		}
		back.RawQuery = v.Encode()
		http.Redirect(w, r, back.String(), http.StatusFound)
	}
	switch {
	case q.Get("response_type") != "code":
		fail("unsupported_response_type", "only the code flow")
		return
	case q.Get("code_challenge") == "" || q.Get("code_challenge_method") != "S256":
		fail("invalid_request", "PKCE with S256 is required")
		return
	case login.Error != "":
		fail(login.Error, "the test said no")
		return
	}

	code := rand.Text()
	p.mu.Lock()
	p.grants[code] = grant{redirectURI: redirectURI, challenge: q.Get("code_challenge"), nonce: q.Get("nonce"), login: login}
	p.mu.Unlock()
	v := url.Values{"code": {code}}
	if s := q.Get("state"); s != "" {
		v.Set("state", s)
	}
	back.RawQuery = v.Encode()
	http.Redirect(w, r, back.String(), http.StatusFound)
}

// token redeems a code once, for the client it was issued to, with the
// PKCE verifier that matches its challenge.
func (p *Provider) token(w http.ResponseWriter, r *http.Request) {
	if err := r.ParseForm(); err != nil {
		tokenError(w, "invalid_request", "unreadable form")
		return
	}
	form := r.PostForm
	p.mu.Lock()
	p.tokens = append(p.tokens, form)
	g, ok := p.grants[form.Get("code")]
	delete(p.grants, form.Get("code")) // a code works once, even if this request fails
	now := p.now()
	p.mu.Unlock()

	id, secret, basic := r.BasicAuth()
	if basic {
		// RFC 6749 2.3.1: the header's parts are form-encoded.
		id, _ = url.QueryUnescape(id)
		secret, _ = url.QueryUnescape(secret)
	} else {
		id, secret = form.Get("client_id"), form.Get("client_secret")
	}
	if id != p.ClientID || subtle.ConstantTimeCompare([]byte(secret), []byte(p.ClientSecret)) != 1 {
		w.Header().Set("WWW-Authenticate", `Basic realm="oidctest"`)
		writeJSON(w, http.StatusUnauthorized, map[string]string{"error": "invalid_client"})
		return
	}
	switch {
	case form.Get("grant_type") != "authorization_code":
		tokenError(w, "unsupported_grant_type", "only authorization_code")
		return
	case !ok:
		tokenError(w, "invalid_grant", "unknown or used code")
		return
	case form.Get("redirect_uri") != g.redirectURI:
		tokenError(w, "invalid_grant", "redirect_uri differs from the authorization request")
		return
	case !pkceMatches(form.Get("code_verifier"), g.challenge):
		tokenError(w, "invalid_grant", "code_verifier does not match the S256 challenge")
		return
	}

	idToken, err := p.signIDToken(g, now)
	if err != nil {
		p.t.Errorf("oidctest: signing the ID token: %v", err)
		http.Error(w, "signing failed", http.StatusInternalServerError)
		return
	}
	access := rand.Text()
	p.mu.Lock()
	p.accessTokens[access] = g.login
	p.mu.Unlock()
	writeJSON(w, http.StatusOK, map[string]any{
		"access_token": access,
		"token_type":   "Bearer",
		"expires_in":   3600,
		"id_token":     idToken,
	})
}

// pkceMatches applies RFC 7636's S256 check.
func pkceMatches(verifier, challenge string) bool {
	if verifier == "" || challenge == "" {
		return false
	}
	sum := sha256.Sum256([]byte(verifier))
	want := base64.RawURLEncoding.EncodeToString(sum[:])
	return subtle.ConstantTimeCompare([]byte(want), []byte(challenge)) == 1
}

func (p *Provider) signIDToken(g grant, now time.Time) (string, error) {
	l := g.login
	claims := map[string]any{
		"iss": p.URL,
		"sub": l.Subject,
		"aud": p.ClientID,
		"iat": now.Unix(),
		"exp": now.Add(time.Hour).Unix(),
	}
	if l.Issuer != "" {
		claims["iss"] = l.Issuer
	}
	if l.Audience != "" {
		claims["aud"] = l.Audience
	}
	if l.Expired {
		claims["iat"] = now.Add(-2 * time.Hour).Unix()
		claims["exp"] = now.Add(-time.Hour).Unix()
	}
	switch {
	case l.NoNonce:
	case l.Nonce != "":
		claims["nonce"] = l.Nonce
	case g.nonce != "":
		claims["nonce"] = g.nonce
	}
	if !l.ClaimsOnlyInUserInfo {
		addProfileClaims(claims, l)
	}
	payload, err := json.Marshal(claims)
	if err != nil {
		return "", err
	}
	key := signingKey()
	if l.ForeignKey {
		key = foreignKey()
	}
	signer, err := jose.NewSigner(
		jose.SigningKey{Algorithm: jose.RS256, Key: jose.JSONWebKey{Key: key, KeyID: keyID, Algorithm: string(jose.RS256)}},
		(&jose.SignerOptions{}).WithType("JWT"),
	)
	if err != nil {
		return "", err
	}
	jws, err := signer.Sign(payload)
	if err != nil {
		return "", err
	}
	return jws.CompactSerialize()
}

func addProfileClaims(claims map[string]any, l Login) {
	if l.Email != "" {
		claims["email"] = l.Email
		claims["email_verified"] = l.EmailVerified
	}
	if l.Name != "" {
		claims["name"] = l.Name
	}
}

// userinfo answers for the bearer of an access token from /token.
func (p *Provider) userinfo(w http.ResponseWriter, r *http.Request) {
	token, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	p.mu.Lock()
	l, known := p.accessTokens[token]
	p.mu.Unlock()
	if !ok || !known {
		w.Header().Set("WWW-Authenticate", `Bearer error="invalid_token"`)
		writeJSON(w, http.StatusUnauthorized, map[string]string{"error": "invalid_token"})
		return
	}
	claims := map[string]any{"sub": l.Subject}
	if l.UserInfoSubject != "" {
		claims["sub"] = l.UserInfoSubject
	}
	addProfileClaims(claims, l)
	writeJSON(w, http.StatusOK, claims)
}

func tokenError(w http.ResponseWriter, code, description string) {
	writeJSON(w, http.StatusBadRequest, map[string]string{"error": code, "error_description": description})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	body, err := json.Marshal(v)
	if err != nil {
		http.Error(w, fmt.Sprintf("oidctest: %v", err), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_, _ = w.Write(body)
}
