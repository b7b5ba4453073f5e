// Package config owns Harmony's runtime settings: every setting is an
// environment variable and a flag of the same meaning, parsed and validated
// once at start-up into a Config. Nothing else in the program reads the
// environment.
package config

import (
	"log/slog"
	"net/netip"
	"net/url"
	"time"
)

// Version is the build's version, set with
// -ldflags "-X github.com/harmony/harmony/internal/config.Version=v1.2.3".
var Version = "dev"

// Env is the deployment mode.
type Env string

const (
	Development Env = "development"
	Production  Env = "production"
)

// Config is the validated configuration of one process.
type Config struct {
	Addr string
	// BaseURL is the public origin, without a trailing slash.
	BaseURL *url.URL
	// BaseURLFromAddr is true when BASE_URL was not set and BaseURL was
	// derived from ADDR (development only); serve re-derives it from the
	// port it really got.
	BaseURLFromAddr bool
	DataDir         string
	// AzureConnectionString selects the Azure backend when set; empty means
	// the embedded store in DataDir.
	AzureConnectionString string
	TablePrefix           string
	Env                   Env

	// SessionKeys sign and encrypt session cookies: the first signs, all
	// verify, so a key can be rotated out gradually.
	SessionKeys [][]byte
	// CursorKeys sign paging cursors, with the same rotation rule.
	CursorKeys [][]byte

	AdminEmails []string
	SMTPURL     string
	OIDC        OIDC
	OpenAI      OpenAI

	// MessagesTTL expires chat messages; zero keeps them forever.
	MessagesTTL time.Duration
	LogLevel    slog.Level
	// TrustedProxies may set X-Forwarded-For; nobody else is believed.
	TrustedProxies     []netip.Prefix
	SessionIdleTimeout time.Duration
	SessionMaxAge      time.Duration
	// BodyLimit is the largest request body accepted, in bytes.
	BodyLimit int64
	// InviteLimitHour and InviteLimitDay bound the invitation mails one
	// person sends.
	InviteLimitHour, InviteLimitDay int
	// ChatRooms are the fixed chat rooms seeded on first start.
	ChatRooms []string
	// RegistrationsPerMinute bounds one person's event registrations.
	RegistrationsPerMinute int
	// PromptTags seed an empty prompt tag catalog; nil means the built-in
	// list. Admins manage the catalog from then on.
	PromptTags []PromptTag
	// Demo fills an empty store with demo content at start
	// (development only).
	Demo bool
}

// PromptTag is one tag of PROMPT_TAGS.
type PromptTag struct {
	Slug, English, Russian string
}

// OIDC is the optional single sign-on provider.
type OIDC struct {
	Issuer       string
	ClientID     string
	ClientSecret string
	// Name is what the sign-in button calls the provider.
	Name string
}

// Enabled reports whether single sign-on is configured.
func (o OIDC) Enabled() bool { return o.Issuer != "" }

// OpenAI is the optional OpenAI-compatible API used by the prompt catalog.
type OpenAI struct {
	BaseURL string
	APIKey  string
	Model   string
}

// IsProduction reports production mode: ENV=production or an https BASE_URL.
// Production refuses generated secrets.
func (c *Config) IsProduction() bool {
	return c.Env == Production || c.Secure()
}

// Secure reports whether the app is served over https, which turns on
// Secure cookies, the __Host- cookie prefix and HSTS.
func (c *Config) Secure() bool {
	return c.BaseURL != nil && c.BaseURL.Scheme == "https"
}

// Backend names the storage backend this configuration selects.
func (c *Config) Backend() string {
	if c.AzureConnectionString != "" {
		return "azure"
	}
	return "embedded"
}
