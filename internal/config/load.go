package config

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/mail"
	"net/url"
	"regexp"
	"strconv"
	"strings"

	"github.com/harmony/harmony/internal/formrule"
)

// LookupEnv reads one environment variable; os.LookupEnv in production,
// a map in tests.
type LookupEnv func(name string) (string, bool)

// Load reads every setting from the environment, then from flags in args
// (a flag wins), and validates the result. It reports every problem at once.
// With -h or -help in args it returns flag.ErrHelp.

func Load(args []string, env LookupEnv) (*Config, error) {
	raw, err := readRaw(args, env)
	if err != nil {
		return nil, err
	}
	return parse(raw)
}

// readRaw resolves each setting's text: default, then environment, then flag.
func readRaw(args []string, env LookupEnv) (map[string]string, error) {
	fs := flag.NewFlagSet("web", flag.ContinueOnError)
	fs.SetOutput(io.Discard) // the caller prints errors and usage
	values := make(map[string]*string)
	var conflicts []error
	for _, s := range settings() {
		v, source, ok := s.def, "", false
		for _, name := range append([]string{s.env}, s.aliases...) {
			got, found := env(name)
			if !found || got == "" {
				continue
			}
			if ok && got != v {
				conflicts = append(conflicts, fmt.Errorf("%s and %s are both set and differ; set one", source, name))
			}
			v, source, ok = got, name, true
		}
		values[s.env] = fs.String(s.flagName(), v, s.usage)
	}
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	if fs.NArg() > 0 {
		return nil, fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	if len(conflicts) > 0 {
		return nil, errors.Join(conflicts...)
	}
	raw := make(map[string]string, len(values))
	for k, v := range values {
		raw[k] = strings.TrimSpace(*v)
	}
	return raw, nil
}

var tablePrefixPattern = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9]{0,19}$`)

// parse turns raw setting text into a Config, collecting every error.
func parse(raw map[string]string) (*Config, error) {
	var errs []error
	fail := func(name string, err error) {
		errs = append(errs, fmt.Errorf("%s: %w", name, err))
	}
	c := &Config{
		Addr:                  raw["ADDR"],
		DataDir:               raw["DATA_DIR"],
		AzureConnectionString: raw["AZURE_STORAGE_CONNECTION_STRING"],
		TablePrefix:           raw["TABLE_PREFIX"],
		OIDC: OIDC{
			Issuer:       raw["OIDC_ISSUER"],
			ClientID:     raw["OIDC_CLIENT_ID"],
			ClientSecret: raw["OIDC_CLIENT_SECRET"],
			Name:         raw["OIDC_NAME"],
		},
		OpenAI: OpenAI{
			BaseURL: raw["OPENAI_BASE_URL"],
			APIKey:  raw["OPENAI_API_KEY"],
			Model:   raw["OPENAI_MODEL"],
		},
	}

	if _, _, err := net.SplitHostPort(c.Addr); err != nil {
		fail("ADDR", fmt.Errorf("want host:port such as :8080: %w", err))
	}
	switch Env(raw["ENV"]) {
	case Development, Production:
		c.Env = Env(raw["ENV"])
	default:
		fail("ENV", fmt.Errorf("want %q or %q, got %q", Development, Production, raw["ENV"]))
	}
	switch {
	case raw["BASE_URL"] != "":
		base, err := parseBaseURL(raw["BASE_URL"])
		if err != nil {
			fail("BASE_URL", err)
		}
		c.BaseURL = base
		if c.Env == Production && base != nil && base.Scheme != "https" {
			fail("BASE_URL", errors.New("must be https in production"))
		}
	case c.Env == Production:
		fail("BASE_URL", errors.New("required in production: the https address people reach the site at"))
	default:
		// Links in mail, join links, QR codes and .ics URLs must reach
		// this server, so development follows ADDR.
		c.BaseURL, c.BaseURLFromAddr = BaseURLForAddr(c.Addr), true
	}
	if c.DataDir == "" {
		fail("DATA_DIR", errors.New("must not be empty"))
	}
	if c.TablePrefix != "" && !tablePrefixPattern.MatchString(c.TablePrefix) {
		fail("TABLE_PREFIX", fmt.Errorf("want 1-20 letters and digits starting with a letter, got %q", c.TablePrefix))
	}

	parsed(fail, raw, "SESSION_KEYS", parseKeys, &c.SessionKeys)
	parsed(fail, raw, "CURSOR_KEY", parseKeys, &c.CursorKeys)
	if c.IsProduction() {
		if raw["SESSION_KEYS"] == "" {
			fail("SESSION_KEYS", errors.New("required in production (generate one with: openssl rand -hex 32)"))
		}
		if raw["CURSOR_KEY"] == "" {
			fail("CURSOR_KEY", errors.New("required in production (generate one with: openssl rand -hex 32)"))
		}
	}
	if sharesKey(c.SessionKeys, c.CursorKeys) {
		fail("CURSOR_KEY", errors.New("must differ from every SESSION_KEYS key"))
	}

	if parsed(fail, raw, "SESSION_IDLE_TIMEOUT", parseDuration, &c.SessionIdleTimeout) && c.SessionIdleTimeout <= 0 {
		fail("SESSION_IDLE_TIMEOUT", errors.New("must be positive"))
	}
	if parsed(fail, raw, "SESSION_MAX_AGE", parseDuration, &c.SessionMaxAge) {
		switch {
		case c.SessionMaxAge <= 0:
			fail("SESSION_MAX_AGE", errors.New("must be positive"))
		case c.SessionIdleTimeout > c.SessionMaxAge:
			fail("SESSION_IDLE_TIMEOUT", errors.New("must not exceed SESSION_MAX_AGE"))
		}
	}

	parsed(fail, raw, "ADMIN_EMAILS", parseEmails, &c.AdminEmails)
	parsed(fail, raw, "PROMPT_TAGS", parsePromptTags, &c.PromptTags)
	if c.SMTPURL = raw["SMTP_URL"]; c.SMTPURL != "" {
		if err := checkURL(c.SMTPURL, "smtp", "smtps"); err != nil {
			fail("SMTP_URL", err)
		}
	}
	if c.OIDC.Issuer != "" || c.OIDC.ClientID != "" || c.OIDC.ClientSecret != "" {
		if err := checkURL(c.OIDC.Issuer, "https", "http"); err != nil {
			fail("OIDC_ISSUER", err)
		}
		if c.OIDC.ClientID == "" {
			fail("OIDC_CLIENT_ID", errors.New("required when OIDC_ISSUER is set"))
		}
	}
	if c.OpenAI.BaseURL != "" {
		if err := checkURL(c.OpenAI.BaseURL, "https", "http"); err != nil {
			fail("OPENAI_BASE_URL", err)
		}
	}
	if parsed(fail, raw, "MESSAGES_TTL", parseDuration, &c.MessagesTTL) && c.MessagesTTL < 0 {
		fail("MESSAGES_TTL", errors.New("must not be negative"))
	}
	parsed(fail, raw, "LOG_LEVEL", parseLogLevel, &c.LogLevel)
	parsed(fail, raw, "TRUSTED_PROXIES", parsePrefixes, &c.TrustedProxies)
	if parsed(fail, raw, "BODY_LIMIT", parseSize, &c.BodyLimit) && c.BodyLimit < 1024 {
		fail("BODY_LIMIT", errors.New("must be at least 1KiB"))
	}
	parsed(fail, raw, "INVITE_LIMIT_HOUR", parseCount, &c.InviteLimitHour)
	parsed(fail, raw, "INVITE_LIMIT_DAY", parseCount, &c.InviteLimitDay)
	for _, r := range strings.Split(raw["CHAT_ROOMS"], ",") {
		if r = strings.TrimSpace(r); r == "" {
			continue
		}
		if !formrule.IsSlug(r, 32) {
			fail("CHAT_ROOMS", fmt.Errorf("%q is not a room slug (lower-case letters, digits, hyphens)", r))
			continue
		}
		c.ChatRooms = append(c.ChatRooms, r)
	}
	parsed(fail, raw, "REGISTRATIONS_PER_MINUTE", parseCount, &c.RegistrationsPerMinute)
	switch raw["DEMO"] {
	case "", "0", "false":
	case "1", "true":
		c.Demo = true
		if c.IsProduction() {
			fail("DEMO", errors.New("demo content is for development; production refuses it"))
		}
	default:
		fail("DEMO", fmt.Errorf("want 1 or 0, got %q", raw["DEMO"]))
	}

	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return c, nil
}

// parsed reads raw[name] into *dst with parse; a failure is fail's
// (and *dst keeps its zero). It reports whether name parsed, so a check
// of the value can follow: parsed(...) && *dst < 0.
func parsed[T any](fail func(string, error), raw map[string]string, name string, parse func(string) (T, error), dst *T) bool {
	v, err := parse(raw[name])
	if err != nil {
		fail(name, err)
		return false
	}
	*dst = v
	return true
}

// BaseURLForAddr is the development BASE_URL for a listen address:
// http, the address's host (localhost when it listens on every
// interface) and its port.
func BaseURLForAddr(addr string) *url.URL {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return &url.URL{Scheme: "http", Host: "localhost:8080"}
	}
	if ip := net.ParseIP(host); host == "" || (ip != nil && ip.IsUnspecified()) {
		host = "localhost"
	}
	return &url.URL{Scheme: "http", Host: net.JoinHostPort(host, port)}
}

// parseBaseURL accepts an absolute http(s) origin. A path would need every
// route and cookie to be mounted below it, which the app does not do.
// parseCount reads a whole number of at least 1.
func parseCount(s string) (int, error) {
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 {
		return 0, fmt.Errorf("want a whole number of at least 1, got %q", s)
	}
	return n, nil
}

func parseBaseURL(s string) (*url.URL, error) {
	if err := checkURL(s, "http", "https"); err != nil {
		return nil, err
	}
	u, _ := url.Parse(s)
	if (u.Path != "" && u.Path != "/") || u.RawQuery != "" || u.Fragment != "" || u.User != nil {
		return nil, fmt.Errorf("want an origin such as https://example.org, got %q", s)
	}
	u.Path = ""
	return u, nil
}

// checkURL reports whether s is an absolute URL with a host and one of the
// given schemes. Error messages never repeat s: it may hold a password.
func checkURL(s string, schemes ...string) error {
	u, err := url.Parse(s)
	if err != nil || u.Host == "" {
		return errors.New("not an absolute URL")
	}
	for _, scheme := range schemes {
		if u.Scheme == scheme {
			return nil
		}
	}
	return fmt.Errorf("scheme must be one of %s", strings.Join(schemes, ", "))
}

func parseEmails(s string) ([]string, error) {
	var out []string
	for _, part := range splitList(s) {
		addr, err := mail.ParseAddress(part)
		if err != nil || addr.Name != "" {
			return nil, fmt.Errorf("%q is not a plain email address", part)
		}
		out = append(out, strings.ToLower(addr.Address))
	}
	return out, nil
}

// parsePromptTags reads "slug=English/Russian, …"; the Russian name is
// optional.
func parsePromptTags(s string) ([]PromptTag, error) {
	var out []PromptTag
	seen := map[string]bool{}
	for _, part := range splitList(s) {
		slug, names, ok := strings.Cut(part, "=")
		slug = strings.TrimSpace(slug)
		english, russian, _ := strings.Cut(names, "/")
		t := PromptTag{Slug: slug, English: strings.TrimSpace(english), Russian: strings.TrimSpace(russian)}
		switch {
		case !ok || t.English == "":
			return nil, fmt.Errorf("%q: want slug=English/Russian", part)
		case !formrule.IsSlug(slug, 32):
			return nil, fmt.Errorf("%q: a tag is lower-case letters and digits joined by hyphens, at most 32", slug)
		case seen[slug]:
			return nil, fmt.Errorf("%q is listed twice", slug)
		}
		seen[slug] = true
		out = append(out, t)
	}
	return out, nil
}

func parseLogLevel(s string) (slog.Level, error) {
	switch strings.ToLower(s) {
	case "debug":
		return slog.LevelDebug, nil
	case "info":
		return slog.LevelInfo, nil
	case "warn":
		return slog.LevelWarn, nil
	case "error":
		return slog.LevelError, nil
	}
	return 0, fmt.Errorf("want debug, info, warn or error, got %q", s)
}

// splitList splits a comma-separated list, dropping blanks.
func splitList(s string) []string {
	var out []string
	for _, part := range strings.Split(s, ",") {
		if part = strings.TrimSpace(part); part != "" {
			out = append(out, part)
		}
	}
	return out
}
