package auth

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/sessions"
	"golang.org/x/oauth2"

	"github.com/harmony/harmony/internal/auth/oidctest"
	"github.com/harmony/harmony/internal/config"
)

func oidcTestConfig(t *testing.T, issuer string) *config.Config {
	t.Helper()
	base, err := url.Parse("http://harmony.test")
	if err != nil {
		t.Fatal(err)
	}
	return &config.Config{BaseURL: base, OIDC: config.OIDC{Issuer: issuer, ClientID: "c", ClientSecret: "s"}}
}

func TestOIDCDiscoveryRetriedLazily(t *testing.T) {
	t.Parallel()
	idp := oidctest.New(t, "c", "s")
	idp.SetDiscoveryDown(true)
	o, err := newOIDC(context.Background(), oidcTestConfig(t, idp.URL), slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatalf("an unreachable provider must not stop the app: %v", err)
	}
	o.retryAfter = 0
	if _, err := o.discover(context.Background()); err == nil {
		t.Fatal("discovery succeeded while the provider is down")
	}
	idp.SetDiscoveryDown(false)
	p, err := o.discover(context.Background())
	if err != nil {
		t.Fatalf("discovery not retried: %v", err)
	}
	if got := p.Endpoint().AuthURL; got != idp.URL+"/authorize" {
		t.Errorf("auth URL %q", got)
	}
}

func TestOIDCDiscoveryRetryIsThrottled(t *testing.T) {
	t.Parallel()
	idp := oidctest.New(t, "c", "s")
	idp.SetDiscoveryDown(true)
	o, err := newOIDC(context.Background(), oidcTestConfig(t, idp.URL), slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	idp.SetDiscoveryDown(false)
	// Within retryAfter of the failure, sign-ins fail fast instead of each
	// waiting on the provider.
	if _, err := o.discover(context.Background()); err == nil {
		t.Error("retried at once; want the failure remembered for a moment")
	}
}

func TestOIDCIssuerMismatchRefusesToStart(t *testing.T) {
	t.Parallel()
	idp := oidctest.New(t, "c", "s")
	// A trailing slash is a different issuer: tokens would never verify.
	_, err := newOIDC(context.Background(), oidcTestConfig(t, idp.URL+"/"), slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err == nil || !strings.Contains(err.Error(), "OIDC_ISSUER") {
		t.Fatalf("err = %v, want an OIDC_ISSUER configuration error", err)
	}
}

func TestOIDCPublicClientSendsNoSecret(t *testing.T) {
	t.Parallel()
	idp := oidctest.New(t, "c", "")
	cfg := oidcTestConfig(t, idp.URL)
	cfg.OIDC.ClientSecret = ""
	o, err := newOIDC(context.Background(), cfg, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	p, err := o.discover(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if style := o.oauth2Config(p).Endpoint.AuthStyle; style != oauth2.AuthStyleInParams {
		t.Errorf("public client auth style %d, want in params", style)
	}
}

func TestOIDCFlowsExpireAndAreSingleUse(t *testing.T) {
	t.Parallel()
	now := time.Unix(1_800_000_000, 0)
	old := oidcFlow{State: "old", Created: now.Add(-oidcFlowMaxAge).Unix()}
	live := oidcFlow{State: "live", Next: "/x", Created: now.Add(-time.Minute).Unix()}
	future := oidcFlow{State: "future", Created: now.Add(time.Hour).Unix()}
	raw, err := json.Marshal([]oidcFlow{old, live, future})
	if err != nil {
		t.Fatal(err)
	}
	sess := sessions.NewSession(nil, "test")
	sess.Values[oidcSessionKey] = string(raw)

	flows := liveOIDCFlows(sess, now)
	if len(flows) != 1 || flows[0].State != "live" {
		t.Fatalf("live flows %+v, want only the live one", flows)
	}
	if _, ok := takeOIDCFlow(&flows, "old"); ok {
		t.Error("an expired state was accepted")
	}
	if _, ok := takeOIDCFlow(&flows, ""); ok {
		t.Error("an empty state was accepted")
	}
	f, ok := takeOIDCFlow(&flows, "live")
	if !ok || f.Next != "/x" {
		t.Fatalf("take live: %+v %v", f, ok)
	}
	if _, ok := takeOIDCFlow(&flows, "live"); ok {
		t.Error("a state was accepted twice")
	}
}

func TestClaimBoolAcceptsStrings(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]bool{`true`: true, `"true"`: true, `false`: false, `"false"`: false, `null`: false, `1`: false} {
		var c idClaims
		if err := json.Unmarshal([]byte(`{"email_verified":`+in+`}`), &c); err != nil {
			t.Fatalf("%s: %v", in, err)
		}
		if bool(c.EmailVerified) != want {
			t.Errorf("email_verified %s read as %v", in, c.EmailVerified)
		}
	}
}
