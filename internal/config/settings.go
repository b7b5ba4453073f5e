package config

import (
	"fmt"
	"io"
	"strings"
)

// setting describes one configuration value: its environment variable, the
// flag that mirrors it, its default and what `web -h` says about it.
type setting struct {
	env   string
	usage string
	def   string
	// aliases are other environment variables accepted for the same value.
	aliases []string
	// secret values are never printed.
	secret bool
}

// flagName is the flag spelling of an environment variable: ADDR → addr,
// BASE_URL → base-url.
func (s setting) flagName() string {
	return strings.ReplaceAll(strings.ToLower(s.env), "_", "-")
}

// settings lists every setting in the order `web -h` prints them.
func settings() []setting {
	return []setting{
		{env: "ADDR", def: "127.0.0.1:8080", usage: "address the HTTP server listens on; loopback unless set (a container needs :8080, all interfaces)"},
		{env: "BASE_URL", usage: "public URL of the site; https turns on production mode, Secure cookies and HSTS. Required (https) in production; in development it follows ADDR (http://127.0.0.1:8080 for the default)"},
		{env: "ENV", def: string(Development), usage: "development or production; production refuses generated secrets"},
		{env: "DATA_DIR", def: "./data", usage: "directory for the embedded store (harmony.db, blobs/) and, in development, generated keys"},
		{env: "AZURE_STORAGE_CONNECTION_STRING", aliases: []string{"AZURE_TABLES_CONNECTION_STRING"}, secret: true,
			usage: "Azure Storage, Cosmos DB for Table or Azurite connection string; empty uses the embedded store (AZURE_TABLES_CONNECTION_STRING is accepted too)"},
		{env: "TABLE_PREFIX", usage: "prefix for table and container names, to share one account between environments (letters and digits, starting with a letter)"},
		{env: "SESSION_KEYS", secret: true, usage: "comma-separated session keys, hex or base64, at least 32 bytes each; the first signs, all verify. Required in production; generated into DATA_DIR in development"},
		{env: "CURSOR_KEY", secret: true, usage: "comma-separated keys for signing paging cursors, same format and rotation as SESSION_KEYS. Required in production; generated into DATA_DIR in development"},
		{env: "SESSION_IDLE_TIMEOUT", def: "168h", usage: "sign a session out after this long without a request (Go duration, or days like 7d)"},
		{env: "SESSION_MAX_AGE", def: "720h", usage: "sign a session out this long after sign-in, however active (Go duration, or days like 30d)"},
		{env: "ADMIN_EMAILS", usage: "comma-separated emails of administrators"},
		{env: "SMTP_URL", secret: true, usage: "mail server, e.g. smtp://user:pass@host:587 or smtps://host:465; ?auth=login|xoauth2|... picks the mechanism"},
		{env: "OIDC_ISSUER", usage: "OpenID Connect issuer URL for single sign-on; empty turns it off"},
		{env: "OIDC_CLIENT_ID", usage: "OpenID Connect client id"},
		{env: "OIDC_CLIENT_SECRET", secret: true, usage: "OpenID Connect client secret (empty for a public client with PKCE)"},
		{env: "OIDC_NAME", usage: "provider name shown on the sign-in button"},
		{env: "OPENAI_BASE_URL", usage: "OpenAI-compatible API base URL (reads appointment scans); empty turns AI off"},
		{env: "OPENAI_API_KEY", secret: true, usage: "API key for OPENAI_BASE_URL"},
		{env: "OPENAI_MODEL", usage: "model name for OPENAI_BASE_URL"},
		{env: "PROMPT_TAGS", usage: "tags seeded into the empty prompt tag catalog on first start: comma-separated slug=English/Russian, e.g. coding=Coding/Программирование; empty seeds twelve built-in tags"},
		{env: "MESSAGES_TTL", def: "0", usage: "delete chat messages older than this (Go duration or days like 90d); 0 keeps them"},
		{env: "LOG_LEVEL", def: "info", usage: "debug, info, warn or error"},
		{env: "TRUSTED_PROXIES", usage: "comma-separated IPs or CIDRs of reverse proxies whose X-Forwarded-For is believed"},
		{env: "BODY_LIMIT", def: "4MiB", usage: "largest request body accepted, e.g. 512KiB, 4MiB or a byte count"},
		{env: "INVITE_LIMIT_HOUR", def: "20", usage: "invitation mails one person may send in an hour"},
		{env: "INVITE_LIMIT_DAY", def: "100", usage: "invitation mails one person may send in a day (UTC)"},
		{env: "CHAT_ROOMS", def: "general,random", usage: "the fixed chat rooms seeded on first start: comma-separated slugs (lower-case letters, digits, hyphens)"},
		{env: "REGISTRATIONS_PER_MINUTE", def: "10", usage: "event registrations one person may make in a minute"},
		{env: "DEMO", usage: "1 fills an empty store with demo content at start (development only; production refuses it). Same as web seed demo"},
	}
}

// Usage writes the settings table that `web -h` shows.
func Usage(w io.Writer) {
	fmt.Fprintln(w, "Settings (each is an environment variable and a flag; a flag wins):")
	for _, s := range settings() {
		fmt.Fprintf(w, "\n  %s, -%s\n", s.env, s.flagName())
		fmt.Fprintf(w, "        %s\n", s.usage)
		switch {
		case s.secret:
			fmt.Fprintln(w, "        (secret; never printed)")
		case s.def != "":
			fmt.Fprintf(w, "        (default %q)\n", s.def)
		}
	}
}
