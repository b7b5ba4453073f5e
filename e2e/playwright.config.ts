// End-to-end tests: the real binary on Azurite, driven in Debian's Chromium.
// scripts/test builds bin/web, starts Azurite and sets HARMONY_AZURITE and
// E2E_PORT. Playwright's own browser download does not work here, so the
// browser is /usr/bin/chromium.
import { defineConfig } from '@playwright/test';

const port = Number(process.env.E2E_PORT || 18080);
const baseURL = `http://127.0.0.1:${port}`;
const conn = process.env.HARMONY_AZURITE;
if (!conn) {
  throw new Error('HARMONY_AZURITE is not set: run the suite through scripts/test');
}

export default defineConfig({
  testDir: '.',
  timeout: 30_000,
  retries: 0,
  workers: 2,
  reporter: [['list']],
  outputDir: 'test-results',
  use: {
    baseURL,
    trace: 'retain-on-failure',
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
  webServer: {
    command: '../bin/web serve',
    cwd: __dirname,
    url: `${baseURL}/api/health`,
    reuseExistingServer: false,
    timeout: 60_000,
    stdout: 'pipe',
    stderr: 'pipe',
    env: {
      ADDR: `127.0.0.1:${port}`,
      BASE_URL: baseURL,
      AZURE_STORAGE_CONNECTION_STRING: conn,
      TABLE_PREFIX: `e2e${Date.now().toString(36)}`,
      DATA_DIR: `${process.env.TMPDIR || '/tmp'}/harmony-e2e-${port}`,
      LOG_LEVEL: 'warn',
    },
  },
});
