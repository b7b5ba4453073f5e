// Shared steps for the identity specs: unique users, reading the sign-in
// code from MailDev's REST API, and signing in the way a person does, by
// email code or through the OIDC provider's own login and consent pages.
// scripts/test starts both peers (scripts/lib.sh: start_maildev, start_oidc).
import { expect, type Browser, type BrowserContext, type Page } from '@playwright/test';
import AxeBuilder from '@axe-core/playwright';

// The administrator configured in playwright.config.ts (ADMIN_EMAILS).
// Each spec file that signs an admin in has its own: two workers signing
// one address in at once race for its code (the second send replaces the
// first).
export const adminEmail = 'admin@example.test';
export const blogAdminEmail = 'blog-admin@example.test';
export const storeAdminEmail = 'store-admin@example.test';

// The OIDC peer's built-in account (e2e/peers/oidc.mjs): its subject has a
// slash, so signing in as Alice exercises the escaping of keys.
export const alice = { login: 'e2e/alice', name: 'Alice E2E', email: 'alice@example.test' };

const maildevAPI = process.env.E2E_MAILDEV_API;

// uniqueLocal returns a fresh mailbox name, so every test has its own user
// and the tests stay independent when they run in parallel.
export function uniqueLocal(prefix = 'u'): string {
  return `${prefix}-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}`;
}

export function uniqueEmail(prefix = 'u'): string {
  return `${uniqueLocal(prefix)}@example.test`;
}

type Mail = { id: string; to: { address: string }[]; subject: string; text?: string; html?: string; date: string };

async function mailsTo(email: string): Promise<Mail[]> {
  if (!maildevAPI) throw new Error('E2E_MAILDEV_API is not set: run the suite through scripts/test');
  const res = await fetch(`${maildevAPI}/email`);
  if (!res.ok) throw new Error(`MailDev answered ${res.status}`);
  const all = (await res.json()) as Mail[];
  return all
    .filter((m) => m.to.some((t) => t.address.toLowerCase() === email.toLowerCase()))
    .sort((a, b) => Date.parse(a.date) - Date.parse(b.date));
}

// waitForMail waits until MailDev holds a message for email whose subject
// matches, and returns the newest such.
export async function waitForMail(email: string, subject: RegExp): Promise<Mail> {
  let found: Mail | undefined;
  await expect
    .poll(async () => (found = (await mailsTo(email)).filter((m) => subject.test(m.subject)).pop()) !== undefined, {
      message: `a mail to ${email} with a subject like ${subject}`,
      timeout: 15_000,
    })
    .toBe(true);
  return found!;
}

// mailCount is how many messages MailDev holds for email; pass it to
// readCode to wait for a message sent after that point.
export async function mailCount(email: string): Promise<number> {
  return (await mailsTo(email)).length;
}

// readCode waits until MailDev has more than `after` messages for email and
// returns the 6-digit code in the newest one, with the message.
export async function readCode(email: string, after = 0): Promise<{ code: string; mail: Mail }> {
  let mails: Mail[] = [];
  await expect
    .poll(async () => (mails = await mailsTo(email)).length, {
      message: `a sign-in mail for ${email} in MailDev`,
      timeout: 15_000,
    })
    .toBeGreaterThan(after);
  const mail = mails[mails.length - 1];
  const m = `${mail.subject}\n${mail.text || ''}`.match(/\b(\d{6})\b/);
  if (!m) throw new Error(`no 6-digit code in the mail to ${email}: ${mail.subject} / ${mail.text}`);
  return { code: m[1], mail };
}

// requestCode fills the email form on /signin and waits for the code page.
// It returns how many mails the address had before, for readCode.
export async function requestCode(page: Page, email: string): Promise<number> {
  const before = await mailCount(email);
  await page.goto('/signin');
  const form = page.getByTestId('signin-email-form');
  await form.locator('input[name="email"]').fill(email);
  await form.getByTestId('signin-send').click();
  await expect(page).toHaveURL(/\/signin\/code(\?|$)/);
  return before;
}

// signInWithCode signs page's context in as email through a code that
// travelled over SMTP to MailDev, and waits for the signed-in header.
// Tests running at once may sign the same address in (the admin's): the
// newest mail may then be the other test's code, or the other's request
// may have replaced this one's, so a refused code is asked for again, up
// to three times. identity.spec.ts tests the sign-in itself.
export async function signInWithCode(page: Page, email: string): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    const before = await requestCode(page, email);
    const { code } = await readCode(email, before);
    await page.getByTestId('signin-code').fill(code);
    await page.getByTestId('signin-verify').click();
    try {
      await expect(page.getByTestId('user-menu')).toBeVisible();
      return;
    } catch (e) {
      if (attempt >= 3) throw e;
    }
  }
}

// signInWithOIDC clicks the SSO button on /signin and walks the provider's
// own login and consent pages. Any login works there; the login is the
// subject, and L@example.test (verified) the email, unless it is Alice.
export async function signInWithOIDC(page: Page, login = alice.login): Promise<void> {
  await page.goto('/signin');
  await page.getByTestId('signin-oidc').click();
  await completeProviderLogin(page, login);
  await expect(page.getByTestId('user-menu')).toBeVisible();
}

// completeProviderLogin is the part of the flow on the provider's pages.
export async function completeProviderLogin(page: Page, login: string): Promise<void> {
  const issuer = process.env.E2E_OIDC_ISSUER;
  if (!issuer) throw new Error('E2E_OIDC_ISSUER is not set: run the suite through scripts/test');
  await expect(page).toHaveURL(new RegExp(`^${issuer.replace(/[.]/g, '\\.')}/interaction/`));
  await page.locator('input[name="login"]').fill(login);
  await page.locator('input[name="password"]').fill('any password');
  await page.getByRole('button', { name: 'Sign-in' }).click();
  // The consent page asks once per grant; a fresh browser context always sees it.
  await page.getByRole('button', { name: 'Continue' }).click();
}

// newSignedInPage opens a fresh browser context signed in as email.
export async function newSignedInPage(browser: Browser, email: string): Promise<{ ctx: BrowserContext; page: Page }> {
  const ctx = await browser.newContext();
  const page = await ctx.newPage();
  await signInWithCode(page, email);
  return { ctx, page };
}

// signInDemo signs a person of the demo instance (E2E_DEMO_URL) in with
// the code its development mailbox shows, in a context of the viewport's
// size. The two parts of one layout walk may sign the same person in at
// once, and one may read the other's code (the newest in the mailbox): a
// refused code starts again.
export async function signInDemo(browser: Browser, person: string, viewport: { width: number; height: number }): Promise<BrowserContext> {
  const email = `${person}@demo.example`;
  const ctx = await browser.newContext({ viewport, baseURL: process.env.E2E_DEMO_URL! });
  const page = await ctx.newPage();
  for (let attempt = 1; ; attempt++) {
    await page.goto('/signin');
    await page.getByTestId('signin-email-form').locator('input[type="email"]').fill(email);
    await page.getByTestId('signin-email-form').locator('button[type="submit"]').click();
    await page.waitForURL(/signin\/code/);
    const box = await ctx.newPage();
    await box.goto('/dev/mailbox');
    const code = await box.getByTestId('mailbox-item').filter({ hasText: email }).first().getByTestId('mailbox-code').innerText();
    await box.close();
    await page.locator('#signin-code').fill(code.trim());
    await page.getByTestId('signin-verify').click();
    try {
      await page.waitForURL((u) => !u.pathname.startsWith('/signin'), { timeout: 10_000 });
      break;
    } catch (e) {
      if (attempt >= 3) throw e;
    }
  }
  await page.close();
  return ctx;
}

// expectSignedOut checks what an anonymous visitor sees: the header's
// sign-in link, and a protected page sending them to sign in.
export async function expectSignedOut(page: Page): Promise<void> {
  await page.goto('/account');
  await expect(page).toHaveURL(/\/signin(\?|$)/);
  await expect(page.getByTestId('signin-link')).toBeVisible();
  await expect(page.getByTestId('user-menu')).toHaveCount(0);
}

// personWithOIDC opens a fresh browser context signed in through the OIDC
// peer as login (its display name is the login).
export async function personWithOIDC(browser: Browser, login: string): Promise<Page> {
  const ctx = await browser.newContext();
  const page = await ctx.newPage();
  await signInWithOIDC(page, login);
  return page;
}

// addForumSection has admin (an administrator's page) add a forum
// section from /admin/forum: its short name, name and, optionally, its
// moderators' addresses.
export async function addForumSection(admin: Page, slug: string, name: string, moderators = ''): Promise<void> {
  await admin.goto('/admin/forum');
  const add = admin.getByTestId('section-add');
  await add.getByLabel('Short name for links').fill(slug);
  await add.getByLabel('Name', { exact: true }).fill(name);
  if (moderators) await add.getByLabel('Moderators (email addresses, optional)').fill(moderators);
  await add.getByTestId('section-add-submit').click();
  await expect(admin.getByTestId('flash')).toBeVisible();
}

// groupOfTwo signs two new people in through the OIDC peer (logins
// prefix-a and prefix-b), and a makes the group name with b in it (b
// accepts the invitation); groupPath is the group's page.
export async function groupOfTwo(browser: Browser, prefix: string, name: string): Promise<{ a: Page; b: Page; groupPath: string }> {
  const bLogin = uniqueLocal(`${prefix}-b`);
  const a = await personWithOIDC(browser, uniqueLocal(`${prefix}-a`));
  const b = await personWithOIDC(browser, bLogin);
  await a.goto('/groups/new');
  const create = a.getByTestId('create-group-form');
  await create.getByLabel('Group name').fill(name);
  await create.getByRole('button', { name: 'Create group' }).click();
  const groupPath = new URL(a.url()).pathname.replace(/\/settings$/, '');
  await a.getByTestId('invite-form').getByLabel('Email address').fill(`${bLogin}@example.test`);
  await a.getByTestId('invite-submit').click();
  await b.goto(`${groupPath}/invite`);
  await b.getByRole('button', { name: /accept/i }).click();
  return { a, b, groupPath };
}

// axeProblems runs axe-core on the page in light and dark and returns its
// serious and critical violations, named by page, scheme, rule and nodes.
export async function axeProblems(page: Page, name: string): Promise<string[]> {
  const out: string[] = [];
  for (const scheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    const results = await new AxeBuilder({ page }).analyze();
    out.push(
      ...results.violations
        .filter((v) => v.impact === 'serious' || v.impact === 'critical')
        .map((v) => `${name} (${scheme}): ${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`),
    );
  }
  return out;
}

// isoDateYearsAgo is today's date `years` years ago minus `days` days, so
// the age is exactly `years` whatever the day of the run.
export function isoDateYearsAgo(years: number, days: number): string {
  const d = new Date();
  d.setUTCFullYear(d.getUTCFullYear() - years);
  d.setUTCDate(d.getUTCDate() - days);
  return d.toISOString().slice(0, 10);
}
