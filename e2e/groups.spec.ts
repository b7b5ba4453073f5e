// Groups end to end (issue 4): an owner creates a group and invites by
// email, the invitee accepts from the dashboard, an appointment with a
// responsible member and a private scan, a stranger refused the scan, a
// guest joining by link while the owner's page polls, and a removal that
// takes effect on the removed member's next request. Then axe on the
// dashboard, the roster and an appointment page. Everyone signs in through
// the OIDC peer (login L is the verified L@example.test), which leaves the
// per-IP email-code allowance to the identity specs.
import { test, expect, type Browser, type BrowserContext, type Page } from '@playwright/test';
import AxeBuilder from '@axe-core/playwright';
import path from 'node:path';
import { signInWithOIDC, uniqueLocal } from './helpers';

const scanFixture = path.join(__dirname, 'fixtures', 'avatar.png');

type User = { login: string; email: string; ctx: BrowserContext; page: Page };

// signIn opens a fresh browser context signed in as the OIDC login.
async function signIn(browser: Browser, login: string): Promise<User> {
  const ctx = await browser.newContext();
  const page = await ctx.newPage();
  await signInWithOIDC(page, login);
  return { login, email: `${login}@example.test`, ctx, page };
}

// createGroup creates a group from the dashboard and returns its path.
async function createGroup(page: Page, name: string): Promise<string> {
  await page.goto('/');
  await page.getByTestId('new-group').click();
  const form = page.getByTestId('create-group-form');
  await form.getByLabel('Group name').fill(name);
  await form.getByRole('button', { name: 'Create group' }).click();
  await expect(page.getByTestId('group-name')).toHaveText(name);
  // A new group opens on its settings tab, to invite people.
  return new URL(page.url()).pathname.replace(/\/settings$/, '');
}

async function invite(page: Page, groupPath: string, email: string): Promise<void> {
  await page.goto(`${groupPath}/settings`);
  const form = page.getByTestId('invite-form');
  await form.getByLabel('Email address').fill(email);
  await form.getByTestId('invite-submit').click();
  await expect(page).toHaveURL(new RegExp(`${groupPath}/members$`));
}

// localInput is a datetime-local value `days` from now at hh:00.
function localInput(days: number, hour: number): string {
  const d = new Date(Date.now() + days * 86_400_000);
  const p = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())}T${p(hour)}:00`;
}

// createAppointment fills the form; responsible is a member's display name
// (also ticked as a participant). It returns the appointment's path.
async function createAppointment(page: Page, groupPath: string, title: string, responsible: string, from = localInput(10, 10), to = localInput(10, 11)): Promise<string> {
  await page.goto(groupPath);
  await page.getByTestId('new-appointment').click();
  const form = page.getByTestId('appointment-form');
  await form.getByLabel('Title').fill(title);
  await form.getByLabel(/^Starts/).fill(from);
  await form.getByLabel(/^Ends/).fill(to);
  await form.getByLabel('Location').fill('Clinic, room 4');
  await page.getByTestId('participants').getByLabel(responsible, { exact: true }).check();
  await page.getByTestId('responsible').getByLabel(responsible, { exact: true }).check();
  await page.getByTestId('appointment-submit').click();
  await expect(page.getByTestId('appointment-title')).toHaveText(title);
  return new URL(page.url()).pathname;
}

// uploadScan uploads the fixture on the appointment page and checks that
// the reloaded page's scan image is fetched with 200 and decodes.
async function uploadScan(page: Page): Promise<string> {
  const form = page.getByTestId('scan-form');
  await form.getByLabel('Photo of the appointment card or letter').setInputFiles(scanFixture);
  // The file input speaks the page's language, and names the file chosen.
  await expect(form.locator('.file-pick-button')).toHaveText('Choose a file');
  await expect(form.locator('.file-pick-name')).toHaveText(path.basename(scanFixture));
  // Listen before submitting: the reloaded page fetches the image at once.
  const scanResponse = page.waitForResponse(
    (r) => r.request().method() === 'GET' && /\/appointments\/[^/]+\/scan$/.test(new URL(r.url()).pathname),
  );
  await form.getByRole('button', { name: 'Upload scan' }).click();
  const img = page.getByTestId('scan-image');
  await expect(img).toHaveCount(1);
  const src = await img.getAttribute('src');
  expect(src).toBeTruthy();
  const res = await scanResponse;
  const u = new URL(res.url());
  expect(u.pathname + u.search).toBe(src);
  expect(res.status()).toBe(200);
  await img.scrollIntoViewIfNeeded();
  await expect.poll(() => img.evaluate((el: HTMLImageElement) => el.complete && el.naturalWidth)).toBeGreaterThan(0);
  // The scan goes through the app, never a direct blob URL.
  expect(src!.startsWith('/groups/')).toBe(true);
  return src!;
}

test('groups: invite, accept, appointment with a scan, join link, removal', async ({ browser }) => {
  test.setTimeout(120_000);
  const stamp = uniqueLocal('g');
  const groupName = `Carpool ${stamp}`;
  const title = `Dentist ${stamp}`;

  // 1. A signs in, creates a group and invites B by email (B has no account yet).
  const a = await signIn(browser, `${stamp}-a`);
  const bLogin = `${stamp}-b`;
  const bEmail = `${bLogin}@example.test`;
  const groupPath = await createGroup(a.page, groupName);
  await invite(a.page, groupPath, bEmail);
  const invitedRow = a.page.getByTestId('roster-row').filter({ hasText: bEmail });
  await expect(invitedRow).toHaveAttribute('data-status', 'invited');

  // 2. B signs in and accepts from the dashboard (htmx swaps the card).
  const b = await signIn(browser, bLogin);
  await b.page.goto('/');
  const card = b.page.locator(`[data-testid="group-card"]`).filter({ hasText: groupName });
  await expect(card).toHaveAttribute('data-status', 'invited');
  await card.getByTestId('group-accept').click();
  const activeCard = b.page.locator('[data-testid="group-card"][data-status="active"]').filter({ hasText: groupName });
  await expect(activeCard).toBeVisible();
  await expect(activeCard.getByRole('link', { name: groupName })).toHaveAttribute('href', groupPath);

  // 3. A creates an appointment with B responsible, uploads a scan and sees it.
  const apptPath = await createAppointment(a.page, groupPath, title, bLogin);
  const responsible = a.page.locator('[data-testid="participant"][data-responsible="true"]');
  await expect(responsible).toHaveCount(1);
  await expect(responsible).toContainText(bLogin);
  const scanPath = await uploadScan(a.page);

  // 4. B sees the appointment: on the dashboard card, and its page.
  await b.page.goto('/');
  const upcoming = b.page
    .locator('[data-testid="group-card"]')
    .filter({ hasText: groupName })
    .getByTestId('upcoming-appointment')
    .filter({ hasText: title });
  await expect(upcoming).toBeVisible();
  await upcoming.getByRole('link').click();
  await expect(b.page).toHaveURL(new RegExp(`${apptPath}$`));
  await expect(b.page.getByTestId('appointment-title')).toHaveText(title);
  await expect(b.page.locator('[data-testid="participant"][data-responsible="true"]')).toContainText(bLogin);
  const bScan = await b.ctx.request.get(scanPath);
  expect(bScan.status()).toBe(200);

  // 5. A third user, signed in but not a member, cannot fetch the scan.
  const c = await signIn(browser, `${stamp}-c`);
  const cScan = await c.ctx.request.get(scanPath, { maxRedirects: 0 });
  expect([403, 404]).toContain(cScan.status());
  expect(cScan.headers()['content-type'] || '').not.toMatch(/^image\//);
  // Nor can a visitor.
  const anon = await browser.newContext();
  const anonScan = await anon.request.get(scanPath, { maxRedirects: 0 });
  expect(anonScan.status()).not.toBe(200);
  await anon.close();
  await c.ctx.close();

  // 6. A opens a join link; a guest joins in a fresh context; the owner's
  // page, polling every 3 s, lists them.
  await a.page.goto(`${groupPath}/settings`);
  await a.page.getByTestId('open-join').click();
  await expect(a.page.getByTestId('join-session-page')).toBeVisible();
  await expect(a.page.getByTestId('joined-empty')).toBeVisible();
  const joinURL = await a.page.getByTestId('join-url').getAttribute('href');
  expect(joinURL).toBeTruthy();
  const sessionURL = a.page.url();

  const guestName = `Guest ${stamp}`;
  const guestCtx = await browser.newContext();
  const guest = await guestCtx.newPage();
  await guest.goto(joinURL!);
  await expect(guest.getByTestId('join-page')).toBeVisible();
  await guest.getByLabel('Your name').fill(guestName);
  await guest.getByTestId('join-submit').click();
  await expect(guest).toHaveURL(new RegExp(`${groupPath}$`));
  await expect(guest.getByTestId('group-name')).toHaveText(groupName);

  // No reload on A's side: the list's own polling brings the guest in.
  expect(a.page.url()).toBe(sessionURL);
  const joined = a.page.getByTestId('joined-person').filter({ hasText: guestName });
  await expect(joined).toBeVisible({ timeout: 10_000 });
  await expect(joined).toContainText('guest');
  await guestCtx.close();

  // 7. A removes B from the roster; B's very next request to the group is refused.
  await a.page.goto(`${groupPath}/members`);
  const bRow = a.page.getByTestId('roster-row').filter({ hasText: bEmail });
  await expect(bRow).toHaveAttribute('data-status', 'active');
  // Removing asks first (a <details>, no script needed).
  await bRow.getByTestId('member-remove').click();
  await bRow.getByTestId('member-remove-confirm').click();
  await expect(a.page.getByTestId('roster-row').filter({ hasText: bEmail })).toHaveAttribute('data-status', 'removed');

  const refused = await b.page.goto(groupPath);
  expect(refused?.status()).toBe(404);
  await expect(b.page.getByTestId('group-page')).toHaveCount(0);
  expect((await b.ctx.request.get(apptPath, { maxRedirects: 0 })).status()).toBe(404);
  expect((await b.ctx.request.get(scanPath, { maxRedirects: 0 })).status()).toBe(404);
  // And the group is gone from B's dashboard.
  await b.page.goto('/');
  await expect(b.page.getByTestId('group-card').filter({ hasText: groupName })).toHaveCount(0);

  await b.ctx.close();
  await a.ctx.close();
});

for (const scheme of ['light', 'dark'] as const) {
  test(`axe finds no serious or critical violations on the dashboard, calendar, roster and appointment pages (${scheme})`, async ({ browser }) => {
    test.setTimeout(120_000); // nine pages, an axe run each
    const stamp = uniqueLocal('gx');
    const owner = await signIn(browser, `${stamp}-a`);
    const page = owner.page;
    const groupPath = await createGroup(page, `Axe ${stamp}`);
    // An invited row on the roster, and an appointment with a scan.
    await invite(page, groupPath, `${stamp}-b@example.test`);
    const apptPath = await createAppointment(page, groupPath, `Checkup ${stamp}`, `${stamp}-a`);
    await uploadScan(page);
    // A comment, whose edit page (without JavaScript) is checked too.
    await page.goto(apptPath);
    await page.getByTestId('comment-form').locator('textarea').fill('See you there');
    await page.getByTestId('comment-form').getByTestId('comment-submit').click();
    const editPath = (await page.getByTestId('comment-edit').getAttribute('href'))!;

    await page.emulateMedia({ colorScheme: scheme });
    for (const [name, url, ready] of [
      ['comment edit', editPath, 'comment-edit-page'],
      ['dashboard', '/', 'groups-dashboard'],
      ['roster', `${groupPath}/members`, 'roster'],
      ['appointment', apptPath, 'appointment-page'],
      ['agenda', groupPath, 'appointments-page'],
      ['month', `${groupPath}/appointments/month`, 'month-page'],
      ['week', `${groupPath}/appointments/week`, 'week-page'],
      ['settings', `${groupPath}/settings`, 'group-page'],
      ['new appointment', `${groupPath}/appointments/new`, 'appointment-form-page'],
    ] as const) {
      await page.goto(url);
      await expect(page.getByTestId(ready)).toBeVisible();
      const results = await new AxeBuilder({ page }).analyze();
      const bad = results.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
      expect(bad.map((v) => `${name}: ${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`)).toEqual([]);
    }
    await owner.ctx.close();
  });
}

test('a long unbroken title, a scan and a join link stay within a phone screen', async ({ browser }) => {
  const a = await signIn(browser, uniqueLocal('overflow'));
  const groupPath = await createGroup(a.page, 'Семья'.repeat(16)); // 80 letters, no break
  const me = (await a.page.getByTestId('user-name').textContent())!.trim();
  const appt = await createAppointment(a.page, groupPath, 'Zahnarzttermin'.repeat(8), me);
  await uploadScan(a.page);
  // Across midnight, the same long title sits in the row above the
  // week's hours on both days: each part is cut short within its day's
  // column, not drawn over the next days (which then took its clicks).
  await createAppointment(a.page, groupPath, 'Schwimmtraining'.repeat(6), me, localInput(10, 23), localInput(11, 1));
  await a.page.goto(`${groupPath}/appointments/week?d=${localInput(10, 0).slice(0, 10)}`);
  const day = a.page.locator(`[data-testid="week-day"][data-date="${localInput(10, 0).slice(0, 10)}"]`);
  const dayBox = (await day.boundingBox())!;
  const itemBox = (await day.locator('.week-spans').getByTestId('week-appointment').filter({ hasText: 'Schwimmtraining' }).boundingBox())!;
  expect(itemBox.x + itemBox.width, 'the part before midnight stays in its day').toBeLessThanOrEqual(dayBox.x + dayBox.width + 1);
  // A join link's page shows the link in full: it breaks, not the page.
  await a.page.goto(`${groupPath}/settings`);
  await a.page.getByTestId('open-join').click();
  await expect(a.page.getByTestId('join-session-page')).toBeVisible();
  const joinPage = new URL(a.page.url()).pathname;
  await a.page.setViewportSize({ width: 390, height: 844 });
  for (const path of [groupPath, `${groupPath}/appointments/month`, `${groupPath}/appointments/week`, `${groupPath}/settings`, `${groupPath}/members`, appt, joinPage, '/']) {
    await a.page.goto(path);
    const width = await a.page.evaluate(() => document.documentElement.scrollWidth);
    expect(width, path).toBeLessThanOrEqual(390);
  }
  await a.ctx.close();
});

// A long thread: the appointment page shows the newest 50 comments;
// "Earlier comments" puts the ones before them in place with htmx, and
// keyboard focus moves to the line that marks the thread's start;
// without JavaScript the same link opens the earlier page, which leads
// back to the latest.
test('a long comment thread pages: earlier comments in place with htmx, and by link without JavaScript', async ({ browser }) => {
  test.setTimeout(120_000);
  const stamp = uniqueLocal('gc');
  const a = await signIn(browser, `${stamp}-a`);
  const groupPath = await createGroup(a.page, `Thread ${stamp}`);
  await invite(a.page, groupPath, `${stamp}-b@example.test`);
  const b = await signIn(browser, `${stamp}-b`);
  await b.page.goto('/');
  await b.page.locator('[data-testid="group-card"]').filter({ hasText: `Thread ${stamp}` }).getByTestId('group-accept').click();
  await expect(b.page.locator('[data-testid="group-card"][data-status="active"]').filter({ hasText: `Thread ${stamp}` })).toBeVisible();
  const appt = await createAppointment(a.page, groupPath, `Meeting ${stamp}`, `${stamp}-a`);

  // 55 comments from two people (30 an hour each at most), posted as
  // the form posts them.
  const post = async (u: User, text: string) => {
    const token = await u.page.locator('[data-testid="comment-form"] input[name="_csrf"]').inputValue();
    const res = await u.page.request.post(`${appt}/comments`, { form: { _csrf: token, comment: text }, maxRedirects: 0 });
    expect(res.status(), text).toBe(303);
  };
  await a.page.goto(appt);
  await b.page.goto(appt);
  for (let i = 1; i <= 55; i++) await post(i <= 28 ? a : b, `comment ${String(i).padStart(2, '0')}`);

  const page = b.page;
  await page.goto(appt);
  const comments = page.getByTestId('comment');
  await expect(comments).toHaveCount(50);
  await expect(comments.first()).toContainText('comment 06');
  await expect(comments.last()).toContainText('comment 55');
  // Its author edits the newest in place: no page load, marked edited.
  await comments.last().getByTestId('comment-edit').click();
  const editing = page.getByTestId('comment-edit-form');
  await editing.locator('textarea').fill('comment 55, edited');
  await editing.getByTestId('comment-save').click();
  await expect(comments.last()).toContainText('comment 55, edited');
  await expect(comments.last().getByTestId('comment-edited')).toBeVisible();
  await page.getByTestId('comments-earlier').focus();
  await page.keyboard.press('Enter');
  await expect(comments).toHaveCount(55);
  await expect(comments.first()).toContainText('comment 01');
  await expect(page.getByTestId('comments-earlier')).toHaveCount(0);
  // The thread's start takes the link's place, and its focus.
  await expect(page.getByTestId('comments-start')).toBeFocused();
  expect(new URL(page.url()).search).toBe(''); // in place, not a new page

  // Without JavaScript: the link opens the earlier page.
  const plain = await browser.newContext({ storageState: await b.ctx.storageState(), javaScriptEnabled: false });
  const p2 = await plain.newPage();
  await p2.goto(appt);
  await p2.getByTestId('comments-earlier').click();
  await expect(p2).toHaveURL(/\?cursor=/);
  await expect(p2.getByTestId('comment')).toHaveCount(5);
  await p2.getByTestId('comments-latest').click();
  await expect(p2.getByTestId('comment')).toHaveCount(50);
  await plain.close();
  await a.ctx.close();
  await b.ctx.close();
});
