package auth

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/coreos/go-oidc/v3/oidc"
	"golang.org/x/oauth2"

	"github.com/harmony/harmony/internal/config"
)

// OIDC timing and limits.
const (
	// oidcDiscoveryTimeout bounds discovery at start and on a lazy retry.
	oidcDiscoveryTimeout = 10 * time.Second
	// oidcHTTPTimeout bounds every call to the provider (token, JWKS).
	oidcHTTPTimeout = 15 * time.Second
	// oidcRetryAfter is how long a failed discovery is remembered before a
	// sign-in tries again, so an outage does not queue every sign-in
	// behind a timeout.
	oidcRetryAfter = 5 * time.Second
)

// oidcCallbackPath is where the provider sends the browser back; it is
// the redirect URL to register with the provider.
const oidcCallbackPath = "/auth/oidc/callback"

// oidcScopes are what Harmony asks for: the subject, the email and whether
// the provider verified it, and a display name.
var oidcScopes = []string{oidc.ScopeOpenID, "email", "profile"}

// oidcClient talks to the one configured OpenID provider. Discovery runs at
// start; if the provider is unreachable then, the app still boots (email
// codes keep working) and the first sign-in through the provider retries.
type oidcClient struct {
	clientID     string
	clientSecret string
	issuer       string
	redirectURL  string
	http         *http.Client
	log          *slog.Logger
	retryAfter   time.Duration

	mu       sync.Mutex
	provider *oidc.Provider // nil until discovery succeeds
	failedAt time.Time      // last failed discovery
	lastErr  error
}

// newOIDC configures the provider from cfg.OIDC and runs discovery. It
// fails only on a configuration error the operator must fix (the issuer
// the provider reports is not OIDC_ISSUER); an unreachable provider is
// logged and retried on first use.
func newOIDC(ctx context.Context, cfg *config.Config, log *slog.Logger) (*oidcClient, error) {
	if !cfg.OIDC.Enabled() {
		return nil, errors.New("auth: OIDC is not configured")
	}
	o := &oidcClient{
		clientID:     cfg.OIDC.ClientID,
		clientSecret: cfg.OIDC.ClientSecret,
		issuer:       cfg.OIDC.Issuer,
		redirectURL:  cfg.BaseURL.String() + oidcCallbackPath,
		http:         &http.Client{Timeout: oidcHTTPTimeout},
		log:          log,
		retryAfter:   oidcRetryAfter,
	}
	if _, err := o.discover(ctx); err != nil {
		if _, ok := errors.AsType[*oidc.IssuerMismatchError](err); ok {
			return nil, fmt.Errorf("OIDC_ISSUER: %w", err)
		}
		log.Warn("oidc: provider unreachable at start; sign-in through it retries discovery on first use",
			"issuer", o.issuer, "err", err)
	}
	return o, nil
}

// discover returns the provider, running discovery if it has not yet
// succeeded. Callers hold no lock.
func (o *oidcClient) discover(ctx context.Context) (*oidc.Provider, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.provider != nil {
		return o.provider, nil
	}
	if !o.failedAt.IsZero() && time.Since(o.failedAt) < o.retryAfter {
		return nil, o.lastErr
	}
	ctx, cancel := context.WithTimeout(ctx, oidcDiscoveryTimeout)
	defer cancel()
	// The client rides along into the provider: JWKS fetches use it too.
	p, err := oidc.NewProvider(oidc.ClientContext(ctx, o.http), o.issuer)
	if err != nil {
		o.failedAt, o.lastErr = time.Now(), fmt.Errorf("oidc discovery: %w", err)
		return nil, o.lastErr
	}
	if !o.failedAt.IsZero() {
		o.log.Info("oidc: provider reachable again", "issuer", o.issuer)
	}
	o.provider, o.failedAt, o.lastErr = p, time.Time{}, nil
	return p, nil
}

// oauth2Config is the code-flow client for provider p.
func (o *oidcClient) oauth2Config(p *oidc.Provider) *oauth2.Config {
	endpoint := p.Endpoint()
	if o.clientSecret == "" {
		// A public client proves itself with PKCE alone; sending an empty
		// Basic password makes some providers refuse the request.
		endpoint.AuthStyle = oauth2.AuthStyleInParams
	}
	return &oauth2.Config{
		ClientID:     o.clientID,
		ClientSecret: o.clientSecret,
		Endpoint:     endpoint,
		RedirectURL:  o.redirectURL,
		Scopes:       oidcScopes,
	}
}

// httpContext makes oauth2 calls (the token exchange) use the client with
// a timeout.
func (o *oidcClient) httpContext(ctx context.Context) context.Context {
	return context.WithValue(ctx, oauth2.HTTPClient, o.http)
}

// idClaims are the ID token claims Harmony reads beyond sub.
type idClaims struct {
	Email         string    `json:"email"`
	EmailVerified claimBool `json:"email_verified"`
	Name          string    `json:"name"`
	GivenName     string    `json:"given_name"`
	FamilyName    string    `json:"family_name"`
}

// displayName is the provider's name for the person, or "".
func (c idClaims) displayName() string {
	if n := strings.TrimSpace(c.Name); n != "" {
		return n
	}
	return strings.TrimSpace(strings.TrimSpace(c.GivenName) + " " + strings.TrimSpace(c.FamilyName))
}

// claimBool reads a boolean claim that some providers send as the string
// "true" or "false". Anything else is false.
type claimBool bool

func (b *claimBool) UnmarshalJSON(data []byte) error {
	switch string(data) {
	case "true", `"true"`:
		*b = true
	default:
		*b = false
	}
	return nil
}
