// A real OpenID Connect provider for the end-to-end suite: oidc-provider
// (the certified Node implementation) with one static confidential client
// for Harmony and its development login and consent pages, so the browser
// walks the same redirects, cookies, PKCE and token exchange as with a
// production provider. scripts/test starts it on loopback (start_oidc in
// scripts/lib.sh); nothing here is fit for anything but tests.
//
// Environment:
//   OIDC_PORT           port to listen on, on 127.0.0.1
//   OIDC_REDIRECT_URI   the app's callback, e.g. http://127.0.0.1:1234/auth/oidc/callback
//   OIDC_CLIENT_ID      default harmony-e2e
//   OIDC_CLIENT_SECRET  default harmony-e2e-secret
//   OIDC_LENIENT_CLAIMS 1: also copy email and name into the ID token
//
// Accounts: the login page accepts any login and any password; the login
// becomes the subject. "e2e/alice" (a subject with a slash, to exercise key
// escaping in the app) is Alice E2E <alice@example.test>; any other login L
// gets the name L and the verified email <L with / as .>@example.test, so a
// test can sign in a fresh OIDC user of its own. A login starting with
// "unverified-" gets email_verified false.
import { generateKeyPairSync } from 'node:crypto';
import Provider from 'oidc-provider';

const port = Number(process.env.OIDC_PORT);
const redirectURI = process.env.OIDC_REDIRECT_URI;
if (!port || !redirectURI) {
  console.error('oidc peer: OIDC_PORT and OIDC_REDIRECT_URI are required');
  process.exit(2);
}
const issuer = `http://127.0.0.1:${port}`;

const known = {
  'e2e/alice': { email: 'alice@example.test', email_verified: true, name: 'Alice E2E' },
};

function claimsFor(sub) {
  const base = known[sub] || {
    email: `${sub.replace(/[^A-Za-z0-9._-]/g, '.')}@example.test`,
    email_verified: !sub.startsWith('unverified-'),
    name: sub,
  };
  return { sub, ...base };
}

// A fresh signing key per run: the app fetches it from jwks_uri, as it
// would from any provider, and oidc-provider does not warn about dev keys.
const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
const jwk = { ...privateKey.export({ format: 'jwk' }), use: 'sig', alg: 'RS256', kid: 'e2e' };

const provider = new Provider(issuer, {
  clients: [
    {
      client_id: process.env.OIDC_CLIENT_ID || 'harmony-e2e',
      client_secret: process.env.OIDC_CLIENT_SECRET || 'harmony-e2e-secret',
      redirect_uris: [redirectURI],
      grant_types: ['authorization_code'],
      response_types: ['code'],
      token_endpoint_auth_method: 'client_secret_basic',
    },
  ],
  jwks: { keys: [jwk] },
  scopes: ['openid', 'email', 'profile'],
  claims: {
    openid: ['sub'],
    email: ['email', 'email_verified'],
    profile: ['name'],
  },
  // oidc-provider's default follows OIDC Core 5.4: with an access token,
  // email and profile claims come only from the userinfo endpoint, so the
  // app must read it. OIDC_LENIENT_CLAIMS=1 also puts them in the ID token,
  // as Google, Entra ID and Keycloak do.
  conformIdTokenClaims: process.env.OIDC_LENIENT_CLAIMS !== '1',
  // PKCE for every client, and oidc-provider only accepts S256.
  pkce: { required: () => true },
  features: { devInteractions: { enabled: true } },
  async findAccount(_ctx, sub) {
    return {
      accountId: sub,
      async claims() {
        return claimsFor(sub);
      },
    };
  },
  // Dev keys for the provider's own cookies; they only live as long as the run.
  cookies: { keys: ['harmony-e2e-oidc-cookie-key'] },
  // Explicit lifetimes (seconds), long enough for any test; they also keep
  // the provider from logging a notice for each default it falls back to.
  ttl: { Interaction: 600, Session: 3600, Grant: 3600, AccessToken: 600, IdToken: 600, AuthorizationCode: 120 },
  renderError(ctx, out) {
    ctx.type = 'html';
    ctx.body = `<!doctype html><title>oidc error</title><h1>oidc error</h1><pre>${
      Object.entries(out).map(([k, v]) => `${k}: ${String(v).replace(/[<&]/g, '')}`).join('\n')
    }</pre>`;
  },
});

// Log what the app asks for and how it ends, so a failing run shows it.
for (const ev of ['server_error', 'authorization.error', 'grant.error', 'userinfo.error']) {
  provider.on(ev, (_ctx, err) => console.error(`oidc peer ${ev}: ${err.name}: ${err.message} ${err.error_description || ''}`));
}

provider.listen(port, '127.0.0.1', () => {
  console.log(`oidc peer listening: ${issuer}/.well-known/openid-configuration`);
});
