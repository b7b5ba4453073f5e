package config

import (
	"bytes"
	"encoding/base64"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// Test keys: 32 bytes each, in the two accepted encodings.
var (
	hexKeyA    = strings.Repeat("ab", 32)
	hexKeyB    = strings.Repeat("cd", 32)
	base64KeyC = base64.StdEncoding.EncodeToString(bytes.Repeat([]byte{7}, 40))
)

func envOf(m map[string]string) LookupEnv {
	return func(name string) (string, bool) {
		v, ok := m[name]
		return v, ok
	}
}

func TestLoadDefaults(t *testing.T) {
	c, err := Load(nil, envOf(nil))
	if err != nil {
		t.Fatal(err)
	}
	if c.Addr != "127.0.0.1:8080" || c.BaseURL.String() != "http://127.0.0.1:8080" || c.DataDir != "./data" {
		t.Errorf("defaults: addr %q base %q data %q", c.Addr, c.BaseURL, c.DataDir)
	}
	if c.IsProduction() || c.Secure() {
		t.Error("defaults must be development over http")
	}
	if c.Backend() != "embedded" {
		t.Errorf("backend %q, want embedded", c.Backend())
	}
	if c.BodyLimit != 4<<20 || c.SessionIdleTimeout != 7*24*time.Hour || c.SessionMaxAge != 30*24*time.Hour {
		t.Errorf("body %d idle %s max %s", c.BodyLimit, c.SessionIdleTimeout, c.SessionMaxAge)
	}
}

func TestLoadValidation(t *testing.T) {
	prodKeys := map[string]string{"SESSION_KEYS": hexKeyA, "CURSOR_KEY": hexKeyB}
	with := func(base map[string]string, kv ...string) map[string]string {
		m := map[string]string{}
		for k, v := range base {
			m[k] = v
		}
		for i := 0; i < len(kv); i += 2 {
			m[kv[i]] = kv[i+1]
		}
		return m
	}
	tests := []struct {
		name    string
		env     map[string]string
		args    []string
		wantErr []string // substrings the error must contain; nil means success
		check   func(t *testing.T, c *Config)
	}{
		{name: "production env refuses missing secrets",
			env:     map[string]string{"ENV": "production"},
			wantErr: []string{"SESSION_KEYS: required in production", "CURSOR_KEY: required in production", "BASE_URL: required in production"}},
		{name: "production needs an https base url",
			env:     with(prodKeys, "ENV", "production", "BASE_URL", "http://harmony.example"),
			wantErr: []string{"BASE_URL: must be https in production"}},
		{name: "development base url follows ADDR",
			env: map[string]string{"ADDR": "192.168.1.5:8081"},
			check: func(t *testing.T, c *Config) {
				if c.BaseURL.String() != "http://192.168.1.5:8081" || !c.BaseURLFromAddr {
					t.Errorf("base %q from addr %v", c.BaseURL, c.BaseURLFromAddr)
				}
			}},
		{name: "development base url for all interfaces is localhost",
			env: map[string]string{"ADDR": ":9000"},
			check: func(t *testing.T, c *Config) {
				if c.BaseURL.String() != "http://localhost:9000" {
					t.Errorf("base %q", c.BaseURL)
				}
			}},
		{name: "an explicit base url wins over ADDR",
			env: map[string]string{"ADDR": ":9000", "BASE_URL": "http://harmony.lan:80"},
			check: func(t *testing.T, c *Config) {
				if c.BaseURL.String() != "http://harmony.lan:80" || c.BaseURLFromAddr {
					t.Errorf("base %q from addr %v", c.BaseURL, c.BaseURLFromAddr)
				}
			}},
		{name: "https base url is production",
			env:     map[string]string{"BASE_URL": "https://harmony.example"},
			wantErr: []string{"SESSION_KEYS: required in production"}},
		{name: "production with keys starts",
			env: with(prodKeys, "BASE_URL", "https://harmony.example/"),
			check: func(t *testing.T, c *Config) {
				if !c.IsProduction() || !c.Secure() || c.BaseURL.String() != "https://harmony.example" {
					t.Errorf("production %v secure %v base %q", c.IsProduction(), c.Secure(), c.BaseURL)
				}
				if len(c.SessionKeys) != 1 || len(c.SessionKeys[0]) != 32 {
					t.Errorf("session keys %d", len(c.SessionKeys))
				}
			}},
		{name: "cursor key must differ from session keys",
			env:     map[string]string{"SESSION_KEYS": hexKeyA, "CURSOR_KEY": hexKeyA},
			wantErr: []string{"CURSOR_KEY: must differ"}},
		{name: "session keys rotate: hex then base64",
			env: map[string]string{"SESSION_KEYS": hexKeyA + ", " + base64KeyC},
			check: func(t *testing.T, c *Config) {
				if len(c.SessionKeys) != 2 || c.SessionKeys[0][0] != 0xab || len(c.SessionKeys[1]) != 40 {
					t.Errorf("keys not parsed in order: %d", len(c.SessionKeys))
				}
			}},
		{name: "short session key", env: map[string]string{"SESSION_KEYS": strings.Repeat("ab", 16)},
			wantErr: []string{"SESSION_KEYS: key 1: decodes to 16 bytes"}},
		{name: "garbage session key", env: map[string]string{"SESSION_KEYS": hexKeyA + ",not a key!"},
			wantErr: []string{"SESSION_KEYS: key 2: neither hex nor base64"}},
		{name: "table prefix starting with digit", env: map[string]string{"TABLE_PREFIX": "1dev"},
			wantErr: []string{"TABLE_PREFIX"}},
		{name: "table prefix with dash", env: map[string]string{"TABLE_PREFIX": "dev-1"},
			wantErr: []string{"TABLE_PREFIX"}},
		{name: "table prefix too long", env: map[string]string{"TABLE_PREFIX": "a" + strings.Repeat("b", 20)},
			wantErr: []string{"TABLE_PREFIX"}},
		{name: "table prefix letters and digits", env: map[string]string{"TABLE_PREFIX": "Staging2"},
			check: func(t *testing.T, c *Config) {
				if c.TablePrefix != "Staging2" {
					t.Errorf("prefix %q", c.TablePrefix)
				}
			}},
		{name: "azure tables alias", env: map[string]string{"AZURE_TABLES_CONNECTION_STRING": "UseDevelopmentStorage=true"},
			check: func(t *testing.T, c *Config) {
				if c.AzureConnectionString != "UseDevelopmentStorage=true" || c.Backend() != "azure" {
					t.Errorf("alias not used: backend %q", c.Backend())
				}
			}},
		{name: "azure names agree", env: map[string]string{
			"AZURE_STORAGE_CONNECTION_STRING": "UseDevelopmentStorage=true",
			"AZURE_TABLES_CONNECTION_STRING":  "UseDevelopmentStorage=true"}},
		{name: "azure names disagree", env: map[string]string{
			"AZURE_STORAGE_CONNECTION_STRING": "AccountName=a",
			"AZURE_TABLES_CONNECTION_STRING":  "AccountName=b"},
			wantErr: []string{"AZURE_STORAGE_CONNECTION_STRING and AZURE_TABLES_CONNECTION_STRING are both set"}},
		{name: "flag wins over env", env: map[string]string{"ADDR": ":9000"}, args: []string{"-addr", "127.0.0.1:9100"},
			check: func(t *testing.T, c *Config) {
				if c.Addr != "127.0.0.1:9100" {
					t.Errorf("addr %q", c.Addr)
				}
			}},
		{name: "bad env mode", env: map[string]string{"ENV": "prod"}, wantErr: []string{"ENV: want"}},
		{name: "base url with path", env: map[string]string{"BASE_URL": "https://x.example/app"}, wantErr: []string{"BASE_URL"}},
		{name: "base url not http", env: map[string]string{"BASE_URL": "ftp://x.example"}, wantErr: []string{"BASE_URL"}},
		{name: "bad addr", env: map[string]string{"ADDR": "8080"}, wantErr: []string{"ADDR"}},
		{name: "invite limits", env: map[string]string{"INVITE_LIMIT_HOUR": "5", "INVITE_LIMIT_DAY": "30"},
			check: func(t *testing.T, c *Config) {
				if c.InviteLimitHour != 5 || c.InviteLimitDay != 30 {
					t.Errorf("invite limits %d %d", c.InviteLimitHour, c.InviteLimitDay)
				}
			}},
		{name: "bad invite limit", env: map[string]string{"INVITE_LIMIT_HOUR": "0", "INVITE_LIMIT_DAY": "lots"}, wantErr: []string{"INVITE_LIMIT_HOUR", "INVITE_LIMIT_DAY"}},
		{name: "registration limit", env: map[string]string{"REGISTRATIONS_PER_MINUTE": "3"},
			check: func(t *testing.T, c *Config) {
				if c.RegistrationsPerMinute != 3 {
					t.Errorf("registrations per minute %d", c.RegistrationsPerMinute)
				}
			}},
		{name: "bad registration limit", env: map[string]string{"REGISTRATIONS_PER_MINUTE": "-1"}, wantErr: []string{"REGISTRATIONS_PER_MINUTE"}},
		{name: "durations in days", env: map[string]string{"MESSAGES_TTL": "90d", "SESSION_IDLE_TIMEOUT": "2h"},
			check: func(t *testing.T, c *Config) {
				if c.MessagesTTL != 90*24*time.Hour || c.SessionIdleTimeout != 2*time.Hour {
					t.Errorf("ttl %s idle %s", c.MessagesTTL, c.SessionIdleTimeout)
				}
			}},
		{name: "idle longer than max age", env: map[string]string{"SESSION_IDLE_TIMEOUT": "40d"},
			wantErr: []string{"SESSION_IDLE_TIMEOUT: must not exceed SESSION_MAX_AGE"}},
		{name: "bad duration", env: map[string]string{"MESSAGES_TTL": "forever"}, wantErr: []string{"MESSAGES_TTL"}},
		{name: "bad log level", env: map[string]string{"LOG_LEVEL": "loud"}, wantErr: []string{"LOG_LEVEL"}},
		{name: "trusted proxies", env: map[string]string{"TRUSTED_PROXIES": "10.0.0.0/8, 192.168.1.7,::1"},
			check: func(t *testing.T, c *Config) {
				if len(c.TrustedProxies) != 3 || c.TrustedProxies[1].Bits() != 32 {
					t.Errorf("proxies %v", c.TrustedProxies)
				}
			}},
		{name: "bad trusted proxy", env: map[string]string{"TRUSTED_PROXIES": "10.0.0.0/33"}, wantErr: []string{"TRUSTED_PROXIES"}},
		{name: "body limit units", env: map[string]string{"BODY_LIMIT": "512K"},
			check: func(t *testing.T, c *Config) {
				if c.BodyLimit != 512<<10 {
					t.Errorf("body limit %d", c.BodyLimit)
				}
			}},
		{name: "bad body limit", env: map[string]string{"BODY_LIMIT": "lots"}, wantErr: []string{"BODY_LIMIT"}},
		{name: "admin emails lowercased", env: map[string]string{"ADMIN_EMAILS": "Ann@Example.org, bob@example.org"},
			check: func(t *testing.T, c *Config) {
				if strings.Join(c.AdminEmails, " ") != "ann@example.org bob@example.org" {
					t.Errorf("admins %v", c.AdminEmails)
				}
			}},
		{name: "prompt tags", env: map[string]string{"PROMPT_TAGS": "coding=Coding/Программирование, fun=Fun"},
			check: func(t *testing.T, c *Config) {
				want := []PromptTag{{"coding", "Coding", "Программирование"}, {"fun", "Fun", ""}}
				if !slices.Equal(c.PromptTags, want) {
					t.Errorf("prompt tags %v", c.PromptTags)
				}
			}},
		{name: "bad prompt tag slug", env: map[string]string{"PROMPT_TAGS": "Bad Tag=X"}, wantErr: []string{"PROMPT_TAGS"}},
		{name: "prompt tag without name", env: map[string]string{"PROMPT_TAGS": "coding"}, wantErr: []string{"PROMPT_TAGS"}},
		{name: "prompt tag twice", env: map[string]string{"PROMPT_TAGS": "a=A,a=B"}, wantErr: []string{"PROMPT_TAGS"}},
		{name: "bad admin email", env: map[string]string{"ADMIN_EMAILS": "not-an-email"}, wantErr: []string{"ADMIN_EMAILS"}},
		{name: "oidc needs client id", env: map[string]string{"OIDC_ISSUER": "https://id.example"}, wantErr: []string{"OIDC_CLIENT_ID"}},
		{name: "smtp url scheme", env: map[string]string{"SMTP_URL": "http://mail.example"}, wantErr: []string{"SMTP_URL"}},
		{name: "every problem reported at once", env: map[string]string{"TABLE_PREFIX": "_", "LOG_LEVEL": "x", "ENV": "production"},
			wantErr: []string{"TABLE_PREFIX", "LOG_LEVEL", "SESSION_KEYS", "CURSOR_KEY"}},
		{name: "unexpected argument", args: []string{"extra"}, wantErr: []string{`unexpected argument "extra"`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := Load(tt.args, envOf(tt.env))
			if tt.wantErr == nil {
				if err != nil {
					t.Fatalf("unexpected error: %v", err)
				}
				if tt.check != nil {
					tt.check(t, c)
				}
				return
			}
			if err == nil {
				t.Fatalf("want error containing %q, got none", tt.wantErr)
			}
			for _, want := range tt.wantErr {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error %q does not contain %q", err, want)
				}
			}
		})
	}
}

func TestLoadErrorsNeverEchoSecrets(t *testing.T) {
	secret := "c2VjcmV0LXRoYXQtaXMtdG9vLXNob3J0"
	_, err := Load(nil, envOf(map[string]string{"SESSION_KEYS": secret, "SMTP_URL": "smtp://user:hunter2@:bad"}))
	if err == nil {
		t.Fatal("want error")
	}
	for _, s := range []string{secret, "hunter2"} {
		if strings.Contains(err.Error(), s) {
			t.Errorf("error leaks %q: %v", s, err)
		}
	}
}

func TestLoadHelp(t *testing.T) {
	_, err := Load([]string{"-h"}, envOf(nil))
	if !errors.Is(err, flag.ErrHelp) {
		t.Fatalf("want flag.ErrHelp, got %v", err)
	}
}

func TestUsageListsEverySetting(t *testing.T) {
	var b bytes.Buffer
	Usage(&b)
	for _, s := range settings() {
		if !strings.Contains(b.String(), s.env+", -"+s.flagName()) {
			t.Errorf("usage lacks %s", s.env)
		}
	}
	for _, want := range []string{`(default "127.0.0.1:8080")`, "AZURE_TABLES_CONNECTION_STRING", "(secret; never printed)"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("usage lacks %q", want)
		}
	}
}

func TestEnsureDevSecretsPersists(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "data")
	load := func() *Config {
		c, err := Load(nil, envOf(map[string]string{"DATA_DIR": dir}))
		if err != nil {
			t.Fatal(err)
		}
		return c
	}

	first := load()
	created, err := first.EnsureDevSecrets()
	if err != nil {
		t.Fatal(err)
	}
	if len(created) != 2 {
		t.Fatalf("created %v, want both key files", created)
	}
	for _, name := range []string{sessionKeyFile, cursorKeyFile} {
		info, err := os.Stat(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		if info.Mode().Perm() != 0o600 {
			t.Errorf("%s mode %v, want 0600", name, info.Mode().Perm())
		}
	}

	second := load()
	created, err = second.EnsureDevSecrets()
	if err != nil {
		t.Fatal(err)
	}
	if len(created) != 0 {
		t.Errorf("second start created %v; want the kept keys reused", created)
	}
	if !bytes.Equal(first.SessionKeys[0], second.SessionKeys[0]) || !bytes.Equal(first.CursorKeys[0], second.CursorKeys[0]) {
		t.Error("restart did not reuse the generated keys")
	}
	if bytes.Equal(second.SessionKeys[0], second.CursorKeys[0]) {
		t.Error("session and cursor keys must differ")
	}
}

func TestEnsureDevSecretsKeepsConfiguredKeys(t *testing.T) {
	dir := t.TempDir()
	c, err := Load(nil, envOf(map[string]string{"DATA_DIR": dir, "SESSION_KEYS": hexKeyA}))
	if err != nil {
		t.Fatal(err)
	}
	created, err := c.EnsureDevSecrets()
	if err != nil {
		t.Fatal(err)
	}
	if len(created) != 1 || created[0] != cursorKeyFile {
		t.Errorf("created %v, want only the cursor key", created)
	}
	if _, err := os.Stat(filepath.Join(dir, sessionKeyFile)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("session key file written although SESSION_KEYS is set")
	}
}

func TestBaseURLForAddr(t *testing.T) {
	for addr, want := range map[string]string{
		"127.0.0.1:8080": "http://127.0.0.1:8080",
		":8080":          "http://localhost:8080",
		"0.0.0.0:3000":   "http://localhost:3000",
		"[::]:3000":      "http://localhost:3000",
		"[::1]:3000":     "http://[::1]:3000",
		"myhost:80":      "http://myhost:80",
	} {
		if got := BaseURLForAddr(addr).String(); got != want {
			t.Errorf("BaseURLForAddr(%q) = %q, want %q", addr, got, want)
		}
	}
}
