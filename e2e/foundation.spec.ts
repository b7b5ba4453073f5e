// The foundation: home page, language switch, 404, health and accessibility,
// against the real binary on Azurite.
import { test, expect } from '@playwright/test';
import AxeBuilder from '@axe-core/playwright';

const modules = ['groups', 'prompts', 'events', 'forum', 'chat', 'people', 'store', 'blog'];

test('home page explains the product and links every module', async ({ page }) => {
  const res = await page.goto('/');
  expect(res?.status()).toBe(200);
  await expect(page.getByTestId('home-hero')).toBeVisible();
  await expect(page.getByRole('heading', { level: 1 })).toHaveText(/community/i);
  const nav = page.getByTestId('site-nav');
  for (const m of modules) {
    await expect(nav.locator(`a[href="/${m}"]`)).toHaveCount(1);
  }
  await expect(page.getByTestId('home-modules')).toBeVisible();
});

// Every module is built: each opens from the header as its own page,
// marked current there, and none says "coming soon" (the placeholder a
// module not built yet gets is internal/web's TestComingSoonPages').
test('every module in the header opens its own page, none coming soon', async ({ page }) => {
  for (const m of modules) {
    await page.goto('/');
    await page.getByTestId('site-nav').locator(`a[href="/${m}"]`).click();
    await expect(page).toHaveURL(new RegExp(`/${m}$`));
    await expect(page.getByTestId('site-nav').locator(`a[href="/${m}"][aria-current="page"]`)).toHaveCount(1);
    await expect(page.getByTestId('coming-soon')).toHaveCount(0);
    await expect(page.locator('main h1')).toBeVisible();
  }
});

test('the language switch turns the UI Russian and remembers it', async ({ page }) => {
  await page.goto('/prompts');
  await page.getByTestId('lang-ru').click();
  await expect(page).toHaveURL(/\/prompts$/);
  await expect(page.locator('html')).toHaveAttribute('lang', 'ru');
  await expect(page.getByTestId('site-nav')).toContainText('Форум');
  await page.goto('/');
  await expect(page.locator('html')).toHaveAttribute('lang', 'ru');
  await page.getByTestId('lang-en').click();
  await expect(page.locator('html')).toHaveAttribute('lang', 'en');
});

test('Accept-Language picks Russian for a first visit', async ({ browser }) => {
  const ctx = await browser.newContext({ locale: 'ru-RU' });
  const page = await ctx.newPage();
  await page.goto('/');
  await expect(page.locator('html')).toHaveAttribute('lang', 'ru');
  await ctx.close();
});

test('an unknown page gets a friendly 404 in the layout', async ({ page }) => {
  const res = await page.goto('/no/such/page');
  expect(res?.status()).toBe(404);
  await expect(page.getByTestId('error-page')).toBeVisible();
  await expect(page.getByTestId('site-nav')).toBeVisible();
  await expect(page.locator('body')).not.toContainText(/goroutine|panic|\.go:\d+/);
});

test('/api/health answers cheaply with ok, time and version', async ({ request }) => {
  const res = await request.get('/api/health');
  expect(res.status()).toBe(200);
  const body = await res.json();
  expect(body.ok).toBe(true);
  expect(Number.isNaN(Date.parse(body.time))).toBe(false);
  expect(typeof body.version).toBe('string');
});

test('static assets are content-hashed and cached for a year', async ({ page, request }) => {
  await page.goto('/');
  const css = await page.locator('link[rel="stylesheet"]').first().getAttribute('href');
  expect(css).toMatch(/^\/static\/css\/app\.[0-9a-f]+\.css$/);
  const res = await request.get(css!);
  expect(res.status()).toBe(200);
  expect(res.headers()['cache-control']).toContain('immutable');
});

test('htmx loads under the CSP without violations', async ({ page }) => {
  const violations: string[] = [];
  page.on('console', (msg) => {
    if (/Content Security Policy|Refused to/i.test(msg.text())) violations.push(msg.text());
  });
  await page.goto('/');
  await expect.poll(() => page.evaluate(() => typeof (window as any).htmx)).toBe('object');
  expect(violations).toEqual([]);
});

for (const path of ['/', '/groups']) {
  for (const scheme of ['light', 'dark'] as const) {
    test(`axe finds no serious or critical violations on ${path} (${scheme})`, async ({ page }) => {
      await page.emulateMedia({ colorScheme: scheme });
      await page.goto(path);
      const results = await new AxeBuilder({ page }).analyze();
      const bad = results.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
      expect(bad.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`)).toEqual([]);
    });
  }
}

test('on a phone the modules fold behind a Menu button that works without JavaScript', async ({ browser }) => {
  const ctx = await browser.newContext({ viewport: { width: 390, height: 844 }, javaScriptEnabled: false });
  const page = await ctx.newPage();
  await page.goto('/');
  const header = await page.locator('.site-header').boundingBox();
  expect(header!.height).toBeLessThan(120);
  await expect(page.getByTestId('site-nav')).toBeHidden();
  await page.getByTestId('nav-toggle').click();
  await expect(page.getByTestId('site-nav')).toBeVisible();
  await page.getByTestId('site-nav').locator('a[href="/prompts"]').click();
  await expect(page).toHaveURL(/\/prompts$/);
  await ctx.close();
});

test('on a desktop the header keeps the modules on one row', async ({ page }) => {
  await page.setViewportSize({ width: 1280, height: 800 });
  await page.goto('/');
  await expect(page.getByTestId('nav-toggle')).toBeHidden();
  await expect(page.getByTestId('site-nav')).toBeVisible();
  const header = await page.locator('.site-header').boundingBox();
  expect(header!.height).toBeLessThan(80);
});
