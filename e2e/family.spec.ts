// A family calendar end to end (issue 11): Anna in London creates a
// group and invites Ben in Berlin, who accepts; Anna adds a weekly
// appointment with Ben picking up and a 10-minute reminder; both see it
// in the month and week views at their own local time; Anna changes
// next week's alone; Ben gets the reminder in his inbox and by mail
// (MailDev). axe checks every calendar page. The appointment starts a
// few minutes from now, so the reminder is due while the test waits.
import { test, expect, type Browser, type BrowserContext, type Page } from '@playwright/test';
import AxeBuilder from '@axe-core/playwright';
import { signInWithOIDC, uniqueLocal } from './helpers';

type User = { login: string; email: string; ctx: BrowserContext; page: Page };

// signIn opens a browser in zone, signed in through the OIDC peer; the
// first page gives the profile the browser's zone (static/js/zone.js).
async function signIn(browser: Browser, login: string, zone: string): Promise<User> {
  const ctx = await browser.newContext({ timezoneId: zone });
  const page = await ctx.newPage();
  await signInWithOIDC(page, login);
  await expect(async () => {
    await page.goto('/account');
    await expect(page.locator('select#timezone')).toHaveValue(zone, { timeout: 500 });
  }).toPass({ timeout: 10_000 });
  return { login, email: `${login}@example.test`, ctx, page };
}

// localParts is an instant as the browser of page shows it: the form's
// datetime-local value, the date, and the time.
async function localParts(page: Page, ms: number): Promise<{ input: string; date: string; time: string }> {
  return page.evaluate((ms) => {
    const d = new Date(ms);
    const p = (n: number) => String(n).padStart(2, '0');
    const date = `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())}`;
    const time = `${p(d.getHours())}:${p(d.getMinutes())}`;
    return { input: `${date}T${time}`, date, time };
  }, ms);
}

async function axe(page: Page, name: string): Promise<void> {
  const results = await new AxeBuilder({ page }).analyze();
  const bad = results.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
  expect(bad.map((v) => `${name}: ${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`)).toEqual([]);
}

test('a family shares a weekly pick-up across time zones, changes one week, and is reminded', async ({ browser }) => {
  test.setTimeout(300_000);
  const stamp = uniqueLocal('fam');
  const title = `Swimming ${stamp}`;
  const anna = await signIn(browser, `${stamp}-anna`, 'Europe/London');
  const ben = await signIn(browser, `${stamp}-ben`, 'Europe/Berlin');

  // 1. Anna creates the group (it opens on its settings, to invite) and
  // invites Ben, who accepts from his dashboard.
  await anna.page.goto('/groups/new');
  const create = anna.page.getByTestId('create-group-form');
  await create.getByLabel('Group name').fill(`Family ${stamp}`);
  await create.getByRole('button', { name: 'Create group' }).click();
  await expect(anna.page.getByTestId('invite-form')).toBeVisible();
  const groupPath = new URL(anna.page.url()).pathname.replace(/\/settings$/, '');
  await anna.page.getByTestId('invite-form').getByLabel('Email address').fill(ben.email);
  await anna.page.getByTestId('invite-submit').click();
  await ben.page.goto('/');
  const card = ben.page.getByTestId('group-card').filter({ hasText: `Family ${stamp}` });
  await card.getByTestId('group-accept').click();
  await expect(ben.page.locator('[data-testid="group-card"][data-status="active"]').filter({ hasText: `Family ${stamp}` })).toBeVisible();

  // 2. Anna adds it from the calendar: weekly, Ben picks up, everyone
  // reminded 10 minutes before. It starts in 11–12 minutes.
  const startMs = Math.ceil((Date.now() + 11 * 60_000) / 60_000) * 60_000;
  const atAnna = await localParts(anna.page, startMs);
  const endAnna = await localParts(anna.page, startMs + 60 * 60_000);
  await anna.page.goto(groupPath);
  await axe(anna.page, 'agenda');
  await anna.page.getByTestId('new-appointment').click();
  await axe(anna.page, 'new appointment');
  const form = anna.page.getByTestId('appointment-form');
  await form.getByLabel('Title').fill(title);
  await form.getByLabel(/^Starts/).fill(atAnna.input);
  await form.getByLabel(/^Ends/).fill(endAnna.input);
  await form.getByLabel('How often').selectOption('weekly');
  await form.getByLabel('Reminder for everyone taking part').selectOption('10');
  await anna.page.getByTestId('participants').getByLabel(ben.login, { exact: true }).check();
  await anna.page.getByTestId('responsible').getByLabel(ben.login, { exact: true }).check();
  await anna.page.getByTestId('appointment-submit').click();
  await expect(anna.page.getByTestId('appointment-title')).toHaveText(title);
  await expect(anna.page.getByTestId('appointment-repeat')).toContainText('Every week');

  // 3. Both see it in the month and week views, each at their own time.
  const atBen = await localParts(ben.page, startMs);
  expect(atBen.time).not.toBe(atAnna.time); // London and Berlin differ by an hour
  for (const [who, at, zone] of [[anna, atAnna, 'London'], [ben, atBen, 'Berlin']] as const) {
    await who.page.goto(`${groupPath}/appointments/month?m=${at.date.slice(0, 7)}`);
    await expect(who.page.getByTestId('calendar-zone')).toContainText(zone);
    const day = who.page.locator(`[data-testid="month-day"][data-date="${at.date}"]`);
    await expect(day.getByTestId('month-appointment').filter({ hasText: title })).toContainText(at.time);
    await axe(who.page, `month (${who.login})`);
    await who.page.goto(`${groupPath}/appointments/week?d=${at.date}`);
    const wday = who.page.locator(`[data-testid="week-day"][data-date="${at.date}"]`);
    await expect(wday.getByTestId('week-appointment').filter({ hasText: title })).toContainText(at.time);
    await axe(who.page, `week (${who.login})`);
  }

  // 4. Anna changes next week's alone: from the week view to that
  // occurrence, edit, "Only this one".
  const nextWeek = await localParts(anna.page, startMs + 7 * 86_400_000);
  await anna.page.goto(`${groupPath}/appointments/week?d=${nextWeek.date}`);
  await anna.page.locator(`[data-testid="week-day"][data-date="${nextWeek.date}"]`).getByTestId('week-appointment').filter({ hasText: title }).getByRole('link').click();
  await anna.page.getByTestId('edit-appointment').click();
  await expect(anna.page.getByTestId('edit-scope').getByLabel('Only this one')).toBeChecked();
  await anna.page.getByTestId('appointment-form').getByLabel('Title').fill(`${title} (gala)`);
  await anna.page.getByTestId('appointment-submit').click();
  await expect(anna.page.getByTestId('appointment-title')).toHaveText(`${title} (gala)`);
  await anna.page.goto(`${groupPath}/appointments/week?d=${nextWeek.date}`);
  await expect(anna.page.locator(`[data-testid="week-day"][data-date="${nextWeek.date}"]`).getByTestId('week-appointment')).toContainText(`${title} (gala)`);
  await anna.page.goto(`${groupPath}/appointments/week?d=${atAnna.date}`);
  const thisWeek = anna.page.locator(`[data-testid="week-day"][data-date="${atAnna.date}"]`).getByTestId('week-appointment').filter({ hasText: title });
  await expect(thisWeek).toHaveCount(1);
  await expect(thisWeek).not.toContainText('gala');

  // 5. Ten minutes before, Ben is reminded that he picks up: in his
  // inbox, and by mail with his own time.
  await expect(async () => {
    await ben.page.goto('/inbox');
    await expect(ben.page.getByTestId('inbox-list')).toContainText(`you pick up for “${title}”`, { timeout: 1_000 });
  }).toPass({ timeout: 240_000, intervals: [5_000] });
  const api = process.env.E2E_MAILDEV_API;
  await expect
    .poll(async () => {
      const all = (await (await fetch(`${api}/email`)).json()) as { to: { address: string }[]; subject: string }[];
      return all.filter((m) => m.to.some((t) => t.address === ben.email) && m.subject.startsWith('You pick up')).map((m) => m.subject);
    }, { timeout: 60_000 })
    .toEqual([expect.stringContaining(atBen.time)]);

  await anna.ctx.close();
  await ben.ctx.close();
});
