// Identity end to end: both sign-in methods against real peers (the
// oidc-provider process and MailDev over SMTP), sign-out, sign-out
// everywhere, captured cookies, and accessibility of the sign-in and
// account pages.
import { test, expect } from '@playwright/test';
import AxeBuilder from '@axe-core/playwright';
import {
  alice,
  completeProviderLogin,
  expectSignedOut,
  newSignedInPage,
  readCode,
  requestCode,
  signInWithCode,
  signInWithOIDC,
  uniqueEmail,
  uniqueLocal,
} from './helpers';

test('sign-in through the OIDC provider returns to the page that asked for it', async ({ page }) => {
  await page.goto('/account');
  await expect(page).toHaveURL(/\/signin\?/);
  const sso = page.getByTestId('signin-oidc');
  await expect(sso).toContainText('E2E SSO');
  await sso.click();
  await completeProviderLogin(page, alice.login);
  await expect(page).toHaveURL(/\/account$/);
  await expect(page.getByTestId('user-menu')).toContainText(alice.name);
  await expect(page.getByTestId('profile-form').locator('input[name="displayName"]')).toHaveValue(alice.name);
});

test('sign-in with a code sent by email', async ({ page }) => {
  const email = uniqueEmail();
  const before = await requestCode(page, email);
  const { code, mail } = await readCode(email, before);
  // The code travelled over SMTP to MailDev; the page never shows it.
  expect(mail.to[0].address).toBe(email);
  await expect(page.locator('body')).not.toContainText(code);
  await page.getByTestId('signin-code').fill(code);
  await page.getByTestId('signin-verify').click();
  const menu = page.getByTestId('user-menu');
  await expect(menu).toBeVisible();
  // A first sign-in creates the account, named after the email's local part.
  await expect(menu).toContainText(email.split('@')[0]);
  await expect(page.getByTestId('signin-link')).toHaveCount(0);
});

test('a wrong code is refused with a clear message and nobody is signed in', async ({ page }) => {
  const email = uniqueEmail();
  const before = await requestCode(page, email);
  const { code } = await readCode(email, before);
  const wrong = code === '123456' ? '654321' : '123456';
  await page.getByTestId('signin-code').fill(wrong);
  await page.getByTestId('signin-verify').click();
  await expect(page.getByTestId('signin-message')).toBeVisible();
  await expect(page.getByTestId('signin-message')).not.toBeEmpty();
  await expect(page.getByTestId('user-menu')).toHaveCount(0);
  // The right code still works after one mistake.
  await page.getByTestId('signin-code').fill(code);
  await page.getByTestId('signin-verify').click();
  await expect(page.getByTestId('user-menu')).toBeVisible();
});

test('the same verified email through OIDC and through a code is one account', async ({ browser }) => {
  const local = uniqueLocal('same');
  const email = `${local}@example.test`;
  const a = await newSignedInPage(browser, email);
  await a.page.goto('/account');
  await a.page.getByTestId('profile-form').locator('input[name="displayName"]').fill(`Linked ${local}`);
  await a.page.getByTestId('profile-save').click();
  await expect(a.page.getByTestId('user-menu')).toContainText(`Linked ${local}`);

  // The OIDC peer gives login L the verified email L@example.test.
  const ctx = await browser.newContext();
  const page = await ctx.newPage();
  await signInWithOIDC(page, local);
  await expect(page.getByTestId('user-menu')).toContainText(`Linked ${local}`);
  await ctx.close();
  await a.ctx.close();
});

test('an email the provider did not verify does not reach that email\'s account', async ({ browser }) => {
  // The OIDC peer marks the email of logins starting with "unverified-" as
  // not verified; linking on it would let anyone take over the account.
  const local = uniqueLocal('unverified');
  const a = await newSignedInPage(browser, `${local}@example.test`);
  await a.page.goto('/account');
  await a.page.getByTestId('profile-form').locator('input[name="displayName"]').fill(`Owner ${local}`);
  await a.page.getByTestId('profile-save').click();
  await expect(a.page.getByTestId('user-menu')).toContainText(`Owner ${local}`);

  const ctx = await browser.newContext();
  const page = await ctx.newPage();
  await signInWithOIDC(page, local);
  await expect(page.getByTestId('user-menu')).not.toContainText(`Owner ${local}`);
  await ctx.close();
  await a.ctx.close();
});

test('sign out from the header', async ({ page }) => {
  await signInWithCode(page, uniqueEmail());
  await page.getByTestId('signout').click();
  await expect(page.getByTestId('signin-link')).toBeVisible();
  await expectSignedOut(page);
});

test('after signing out, Back shows no page of the account', async ({ page }) => {
  // A shared computer: the next person must not page back into the
  // account (sign-out clears the browser's copies of this site's pages).
  const email = uniqueEmail('back');
  await signInWithCode(page, email);
  await page.goto('/account');
  await expect(page.getByTestId('profile-form')).toBeVisible();
  await page.getByTestId('signout').click();
  await expect(page.getByTestId('signin-link')).toBeVisible();
  await page.goBack();
  await expect(page.getByTestId('signin-link')).toBeVisible();
  await expect(page.locator('body')).not.toContainText(email);
});

test('sign out everywhere ends the other browser\'s session too', async ({ browser }) => {
  const local = uniqueLocal('everywhere');
  const email = `${local}@example.test`;
  const a = await newSignedInPage(browser, email);
  // The second browser signs in to the same account through the OIDC
  // provider (same verified email), which also avoids the per-email cooldown
  // between two code mails.
  const bctx = await browser.newContext();
  const b = await bctx.newPage();
  await signInWithOIDC(b, local);

  await a.page.goto('/account/sessions');
  const rows = a.page.getByTestId('session-row');
  await expect(rows).toHaveCount(2);
  await expect(a.page.locator('[data-testid="session-row"][data-current="true"]')).toHaveCount(1);
  await a.page.getByTestId('signout-everywhere').click();

  // The other browser is anonymous on its next navigation.
  await b.goto('/');
  await expect(b.getByTestId('signin-link')).toBeVisible();
  await expectSignedOut(b);
  await expectSignedOut(a.page);
  await bctx.close();
  await a.ctx.close();
});

test('revoking one session from the sessions page signs that browser out', async ({ browser }) => {
  const local = uniqueLocal('revoke');
  const a = await newSignedInPage(browser, `${local}@example.test`);
  const bctx = await browser.newContext();
  const b = await bctx.newPage();
  await signInWithOIDC(b, local);

  await a.page.goto('/account/sessions');
  const other = a.page.locator('[data-testid="session-row"]:not([data-current="true"])');
  await expect(other).toHaveCount(1);
  await other.getByTestId('session-revoke').click();
  await expect(a.page.getByTestId('session-row')).toHaveCount(1);
  await expect(a.page.getByTestId('user-menu')).toBeVisible();
  await expectSignedOut(b);
  await bctx.close();
  await a.ctx.close();
});

for (const how of ['sign-out', 'sign out everywhere'] as const) {
  test(`a session cookie captured before ${how} gets no access after it`, async ({ browser }) => {
    const a = await newSignedInPage(browser, uniqueEmail('captured'));
    // Someone copies every cookie of the signed-in browser into another one.
    const stolen = await a.ctx.cookies();
    const cctx = await browser.newContext();
    await cctx.addCookies(stolen);
    const c = await cctx.newPage();
    await c.goto('/account');
    await expect(c).toHaveURL(/\/account$/);
    await expect(c.getByTestId('user-menu')).toBeVisible();

    if (how === 'sign-out') {
      await a.page.getByTestId('signout').click();
      await expect(a.page.getByTestId('signin-link')).toBeVisible();
    } else {
      await a.page.goto('/account/sessions');
      await a.page.getByTestId('signout-everywhere').click();
    }
    // The copied cookie still holds the old session id; the server refuses it.
    await c.goto('/');
    await expect(c.getByTestId('signin-link')).toBeVisible();
    await expectSignedOut(c);
    await cctx.close();
    await a.ctx.close();
  });
}

for (const scheme of ['light', 'dark'] as const) {
  test(`axe finds no serious or critical violations on the sign-in and account pages (${scheme})`, async ({ page }) => {
    await page.emulateMedia({ colorScheme: scheme });
    const problems: string[] = [];
    const check = async (path: string) => {
      await expect(page).toHaveURL(new RegExp(`${path.replace(/\//g, '\\/')}$`));
      const results = await new AxeBuilder({ page }).analyze();
      for (const v of results.violations) {
        if (v.impact === 'serious' || v.impact === 'critical') {
          problems.push(`${path} ${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
        }
      }
    };
    await page.goto('/signin');
    await check('/signin');
    const email = uniqueEmail('axe');
    const before = await requestCode(page, email);
    await check('/signin/code');
    const { code } = await readCode(email, before);
    await page.getByTestId('signin-code').fill(code);
    await page.getByTestId('signin-verify').click();
    await expect(page.getByTestId('user-menu')).toBeVisible();
    for (const path of ['/account', '/account/settings', '/account/sessions']) {
      await page.goto(path);
      await check(path);
    }
    expect(problems).toEqual([]);
  });
}
