// End-to-end tests: the real binary on Azurite, driven in Debian's Chromium.
// scripts/test builds bin/web, starts Azurite and sets HARMONY_AZURITE and
// E2E_PORT. Playwright's own browser download does not work here, so the
// browser is /usr/bin/chromium. scripts/test also starts the identity peers
// on loopback and passes them here: MailDev (E2E_SMTP_URL for the app,
// E2E_MAILDEV_API for the tests) and the OIDC provider (E2E_OIDC_ISSUER,
// E2E_OIDC_CLIENT_ID, E2E_OIDC_CLIENT_SECRET); e2e/peers/ has the provider.
import { defineConfig } from '@playwright/test';

const port = Number(process.env.E2E_PORT || 18080);
const baseURL = `http://127.0.0.1:${port}`;
// A second instance of the app on the same store and table prefix, for
// the cross-instance chat test (e2e/chat.spec.ts reads E2E_SECOND_URL).
const port2 = Number(process.env.E2E_PORT2 || port + 1);
const secondURL = `http://127.0.0.1:${port2}`;
process.env.E2E_SECOND_URL = secondURL;
// A third instance, on its own embedded store with the demo content
// (DEMO=1), for the crawl of every page (e2e/layout.spec.ts).
const port3 = Number(process.env.E2E_PORT3 || port + 2);
const demoURL = `http://127.0.0.1:${port3}`;
process.env.E2E_DEMO_URL = demoURL;
const tablePrefix = process.env.E2E_TABLE_PREFIX || `e2e${Date.now().toString(36)}`;
process.env.E2E_TABLE_PREFIX = tablePrefix;
const conn = process.env.HARMONY_AZURITE;
if (!conn) {
  throw new Error('HARMONY_AZURITE is not set: run the suite through scripts/test');
}

// Synthetic public prompts (about 90% of these) for the catalog's paging
// test, which needs more than two pages of 30.
const seedPrompts = 120;

// Peer settings for the app, only those scripts/test provided, so a run
// without a peer simply leaves that sign-in method unconfigured.
const peers: Record<string, string> = {};
const put = (name: string, value: string | undefined) => {
  if (value) peers[name] = value;
};
put('SMTP_URL', process.env.E2E_SMTP_URL);
put('OIDC_ISSUER', process.env.E2E_OIDC_ISSUER);
put('OIDC_CLIENT_ID', process.env.E2E_OIDC_CLIENT_ID);
put('OIDC_CLIENT_SECRET', process.env.E2E_OIDC_CLIENT_SECRET);
if (process.env.E2E_OIDC_ISSUER) peers.OIDC_NAME = 'E2E SSO';

// serverEnv is one instance's settings: every instance shares the store
// and its table prefix.
function serverEnv(p: number, url: string): Record<string, string> {
  return {
    ADDR: `127.0.0.1:${p}`,
    BASE_URL: url,
    AZURE_STORAGE_CONNECTION_STRING: conn!,
    TABLE_PREFIX: tablePrefix,
    DATA_DIR: `${process.env.TMPDIR || '/tmp'}/harmony-e2e-${p}`,
    LOG_LEVEL: 'warn',
    // e2e/helpers.ts signs in as these administrators (adminEmail, …).
    ADMIN_EMAILS: 'admin@example.test,blog-admin@example.test,store-admin@example.test',
    ...peers,
  };
}

export default defineConfig({
  testDir: '.',
  // A test's own budget. Most sign in one or two people over OIDC or a
  // mailed code, and a loaded CI machine took longer than 30 s for them
  // (people.spec.ts at 26 s here, over 30 s there); the slow ones set
  // more with test.setTimeout.
  timeout: 60_000,
  retries: 0,
  workers: 2,
  reporter: [['list']],
  outputDir: 'test-results',
  use: {
    baseURL,
    trace: 'retain-on-failure',
    // No transitions: axe must not judge contrast halfway through one.
    reducedMotion: 'reduce',
    launchOptions: {
      executablePath: '/usr/bin/chromium',
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
        '--no-first-run',
      ],
    },
  },
  webServer: [
    {
      // Before it serves, the binary seeds synthetic prompts into the same
      // store (same settings, same TABLE_PREFIX), so the catalog has several
      // pages to scroll through (e2e/prompts.spec.ts).
      command: `sh -c '../bin/web seed prompts --count ${seedPrompts} && exec ../bin/web serve'`,
      cwd: __dirname,
      url: `${baseURL}/api/health`,
      reuseExistingServer: false,
      timeout: 60_000,
      stdout: 'pipe',
      stderr: 'pipe',
      env: serverEnv(port, baseURL),
    },
    {
      // The second instance: same store, its own port and data folder.
      // It starts once the first one serves (the first seeds the store).
      command: `sh -c 'for i in $(seq 300); do curl -fs ${baseURL}/api/health >/dev/null && break; sleep 0.2; done; exec ../bin/web serve'`,
      cwd: __dirname,
      url: `${secondURL}/api/health`,
      reuseExistingServer: false,
      timeout: 60_000,
      stdout: 'pipe',
      stderr: 'pipe',
      env: serverEnv(port2, secondURL),
    },
    {
      // The demo instance: a fresh embedded store, filled at start.
      command: '../bin/web serve',
      cwd: __dirname,
      url: `${demoURL}/api/health`,
      reuseExistingServer: false,
      timeout: 60_000,
      stdout: 'pipe',
      stderr: 'pipe',
      env: {
        ADDR: `127.0.0.1:${port3}`,
        BASE_URL: demoURL,
        DATA_DIR: `${process.env.TMPDIR || '/tmp'}/harmony-e2e-demo-${port3}-${Date.now().toString(36)}`,
        DEMO: '1',
        LOG_LEVEL: 'warn',
        // The walking demo people are admins here, so the admin pages
        // are walked in both languages and colour schemes.
        ADMIN_EMAILS: 'anna@demo.example,boris@demo.example,olga@demo.example,tom@demo.example',
      },
    },
  ],
});
