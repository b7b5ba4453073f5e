// The account pages and the admin users page end to end: profile with age,
// photo upload served back through the app, language setting, and an admin
// disabling a user.
import path from 'node:path';
import { test, expect, type Page } from '@playwright/test';
import { adminEmail, alice, axeProblems, completeProviderLogin, expectSignedOut, newSignedInPage, signInWithCode, signInWithOIDC, isoDateYearsAgo, uniqueEmail } from './helpers';

async function expectAvatarLoads(page: Page): Promise<void> {
  const img = page.getByTestId('profile-avatar');
  await expect(img).toBeVisible();
  const src = await img.getAttribute('src');
  expect(src).toBeTruthy();
  const res = await page.request.get(src!);
  expect(res.status()).toBe(200);
  expect(res.headers()['content-type']).toMatch(/^image\/(jpeg|png|webp)/);
  expect(res.headers()['x-content-type-options']).toBe('nosniff');
  expect(res.headers()['cache-control']).toBeTruthy();
  // The browser decoded it: a broken image has no natural width.
  await expect.poll(() => img.evaluate((el: HTMLImageElement) => el.complete && el.naturalWidth)).toBeGreaterThan(0);
}

test('editing the profile shows the new name and the age from the birth date', async ({ page }) => {
  const email = uniqueEmail('profile');
  await signInWithCode(page, email);
  await page.goto('/account');
  const form = page.getByTestId('profile-form');
  const name = `Zoë ${email.split('@')[0].slice(-6)}`;
  await form.locator('input[name="displayName"]').fill(name);
  await form.locator('[name="bio"]').fill('Plays the cello on Sundays.');
  await form.locator('input[name="birthDate"]').fill(isoDateYearsAgo(30, 10));
  await page.getByTestId('profile-save').click();

  await expect(page.getByTestId('flash')).toBeVisible();
  await expect(page.getByTestId('profile-age')).toContainText('30');
  await expect(page.getByTestId('user-menu')).toContainText(name);

  // It is stored, not just echoed.
  await page.goto('/account');
  await expect(form.locator('input[name="displayName"]')).toHaveValue(name);
  await expect(form.locator('[name="bio"]')).toHaveValue('Plays the cello on Sundays.');
  await expect(page.getByTestId('profile-age')).toContainText('30');
});

test('a bad birth date is re-shown with a field error and changes nothing', async ({ page }) => {
  await signInWithCode(page, uniqueEmail('bad'));
  await page.goto('/account');
  const form = page.getByTestId('profile-form');
  const before = await form.locator('input[name="displayName"]').inputValue();
  await form.locator('input[name="displayName"]').fill('Changed Name');
  // A birth date in the future cannot be right.
  await form.locator('input[name="birthDate"]').fill(isoDateYearsAgo(-2, 0));
  await page.getByTestId('profile-save').click();
  await expect(page.getByTestId('field-error').first()).toBeVisible();
  await expect(form.locator('input[name="displayName"]')).toHaveValue('Changed Name');
  await page.goto('/account');
  await expect(form.locator('input[name="displayName"]')).toHaveValue(before);
  await expect(page.getByTestId('user-menu')).toContainText(before);
});

test('uploading a profile photo shows it, served through the app', async ({ page }) => {
  await signInWithCode(page, uniqueEmail('photo'));
  await page.goto('/account');
  await page.getByTestId('photo-input').setInputFiles(path.join(__dirname, 'fixtures', 'avatar.png'));
  await page.getByTestId('photo-upload').click();
  await expectAvatarLoads(page);
  await page.reload();
  await expectAvatarLoads(page);
});

test('an OIDC user whose subject has a slash can upload a photo too', async ({ page }) => {
  await signInWithOIDC(page, alice.login);
  await page.goto('/account');
  await page.getByTestId('photo-input').setInputFiles(path.join(__dirname, 'fixtures', 'avatar.png'));
  await page.getByTestId('photo-upload').click();
  await expectAvatarLoads(page);
});

test('choosing Russian in the settings turns the UI Russian', async ({ page }) => {
  await signInWithCode(page, uniqueEmail('lang'));
  await page.goto('/account/settings');
  const form = page.getByTestId('settings-form');
  await form.locator('select[name="language"]').selectOption('ru');
  await page.getByTestId('settings-save').click();
  await expect(page.locator('html')).toHaveAttribute('lang', 'ru');
  await expect(page.getByTestId('site-nav')).toContainText('Форум');
  // The choice belongs to the account: it holds on the next page.
  await page.goto('/');
  await expect(page.locator('html')).toHaveAttribute('lang', 'ru');
  await expect(page.getByTestId('site-nav')).toContainText('Форум');
});

test('the admin overview, metrics and users pages pass axe and do not overflow a phone', async ({ browser }) => {
  test.setTimeout(90_000); // six axe runs
  const admin = await newSignedInPage(browser, adminEmail);
  const problems: string[] = [];
  for (const [name, path, testid] of [
    ['admin overview', '/admin', 'admin-tool-metrics'],
    ['metrics', '/admin/metrics', 'metrics-section'],
    ['users', '/admin/users', 'admin-user-row'],
  ]) {
    for (const width of [390, 1280]) {
      await admin.page.setViewportSize({ width, height: 900 });
      const res = await admin.page.goto(path);
      expect(res?.status()).toBe(200);
      await expect(admin.page.getByTestId(testid).first()).toBeVisible();
      expect(await admin.page.evaluate(() => document.documentElement.scrollWidth), `${name} at ${width}px`).toBeLessThanOrEqual(width);
    }
    problems.push(...(await axeProblems(admin.page, name)));
  }
  expect(problems).toEqual([]);
});

test('a member who is not an admin gets 403 on the admin pages', async ({ page }) => {
  await signInWithCode(page, uniqueEmail('notadmin'));
  const res = await page.goto('/admin/users');
  expect(res?.status()).toBe(403);
  await expect(page.getByTestId('error-page')).toBeVisible();
});

test('an admin sees the users and disabling one ends their session at once', async ({ browser }) => {
  const userEmail = uniqueEmail('victim');
  const user = await newSignedInPage(browser, userEmail);
  const admin = await newSignedInPage(browser, adminEmail);

  const res = await admin.page.goto('/admin/users');
  expect(res?.status()).toBe(200);
  const rows = admin.page.getByTestId('admin-user-row');
  await expect(rows.first()).toBeVisible();
  // The list is paged by cursor; load pages until the user shows up.
  const row = rows.filter({ hasText: userEmail.split('@')[0] });
  for (let i = 0; i < 50 && (await row.count()) === 0; i++) {
    const more = admin.page.getByTestId('load-more');
    if ((await more.count()) === 0) break;
    // The page holds the inbox's stream open, so the network is never
    // idle: wait for the next page's rows instead.
    const shown = await rows.count();
    await more.first().click();
    await expect.poll(() => rows.count()).toBeGreaterThan(shown);
  }
  await expect(row).toHaveCount(1);
  // Disabling asks first, in place of the row.
  await row.getByTestId('admin-disable').click();
  await admin.page.getByTestId('confirm-row').getByTestId('admin-disable-confirm').click();
  await expect(rows.filter({ hasText: userEmail.split('@')[0] }).getByTestId('admin-enable')).toBeVisible();

  // The disabled user is signed out on their next request.
  await user.page.goto('/');
  await expect(user.page.getByTestId('signin-link')).toBeVisible();
  await expectSignedOut(user.page);

  // And cannot sign in again: here through the OIDC provider, whose login L
  // has the verified email L@example.test, the same account (a second code
  // mail would wait out the per-email cooldown).
  await user.page.goto('/signin');
  await user.page.getByTestId('signin-oidc').click();
  await completeProviderLogin(user.page, userEmail.split('@')[0]);
  // Back on Harmony's own pages, told why, and still anonymous.
  await expect(user.page.getByTestId('site-nav')).toBeVisible();
  await expect(user.page.getByTestId('error-page')).toContainText(/disabled/i);
  await expect(user.page.getByTestId('signin-link')).toBeVisible();
  await expect(user.page.getByTestId('user-menu')).toHaveCount(0);
  await expectSignedOut(user.page);
  await user.ctx.close();
  await admin.ctx.close();
});

test('a first visit takes the browser time zone into an empty profile', async ({ browser }) => {
  const ctx = await browser.newContext({ timezoneId: 'Asia/Tokyo' });
  const page = await ctx.newPage();
  await signInWithOIDC(page, uniqueEmail('zone').split('@')[0]);
  // zone.js posts the zone after the first page; the profile shows it,
  // and once the post has also reached the session, pages stop asking
  // (the profile is written before the sessions, so a page in between
  // may show the one and not yet the other).
  await expect(async () => {
    await page.goto('/account');
    await expect(page.locator('select#timezone')).toHaveValue('Asia/Tokyo', { timeout: 500 });
    await expect(page.locator('body')).not.toHaveAttribute('data-zone-url', /.+/, { timeout: 500 });
  }).toPass({ timeout: 10_000 });
  await ctx.close();
});
