// A group's calendar follows changes live, as TimeTree's does: two
// members of a group in two browsers. B keeps the Month page open; A
// adds an appointment in that month, cancels it and restores it, and B
// sees each within about a second, without a reload, B's focus on a day
// and scroll position kept. Then B, on the appointment's page, starts a
// comment and opens the cancel step; A edits the appointment: B's page
// shows the new title, the comment as typed and the step still open.
// A deletes it: B's page says so. Everyone signs in through the OIDC
// peer.
import { test, expect, type Page } from '@playwright/test';
import { groupOfTwo, uniqueLocal } from './helpers';

// openLive opens path on page and waits until its calendar stream has
// answered, so no change between the page and the stream goes unseen.
async function openLive(page: Page, path: string): Promise<void> {
  const stream = page.waitForResponse((r) => r.url().includes('/appointments/stream') && r.status() === 200);
  await page.goto(path);
  await stream;
}

// dayAhead is the day `days` from now, in the browser's zone: YYYY-MM-DD.
function dayAhead(days: number): string {
  const d = new Date(Date.now() + days * 86_400_000);
  const p = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())}`;
}

test('the calendar shows another member\'s changes live, and keeps what the viewer is doing', async ({ browser }) => {
  test.setTimeout(120_000);
  const { a, b, groupPath } = await groupOfTwo(browser, 'cal', 'Live calendar');

  // B keeps the month of the day open, the keyboard on that day, the
  // page scrolled to its end.
  const day = dayAhead(20);
  const monthPath = `${groupPath}/appointments/month?m=${day.slice(0, 7)}`;
  await openLive(b, monthPath);
  const cell = b.locator(`[data-testid="month-day"][data-date="${day}"]`);
  const dayLink = cell.locator('.month-day-number');
  await dayLink.focus();
  await b.evaluate(() => window.scrollTo(0, document.body.scrollHeight));
  const scrolled = await b.evaluate(() => window.scrollY);

  // A adds an appointment on that day.
  const title = `Picnic ${uniqueLocal('t')}`;
  await a.goto(`${groupPath}/appointments/new?date=${day}&time=12:00`);
  await a.getByTestId('appointment-form').getByLabel('Title').fill(title);
  await a.getByTestId('appointment-submit').click();
  await expect(a.getByTestId('appointment-title')).toHaveText(title);
  const apptPath = new URL(a.url()).pathname;

  // B sees it, without a reload, where B was.
  const item = cell.getByTestId('month-appointment').filter({ hasText: title });
  await expect(item).toHaveCount(1, { timeout: 3000 });
  expect(new URL(b.url()).pathname + new URL(b.url()).search).toBe(monthPath);
  await expect(dayLink).toBeFocused();
  expect(await b.evaluate(() => window.scrollY)).toBe(scrolled);

  // A cancels it: B sees it cancelled; A restores it: B sees that too.
  await a.getByTestId('cancel-appointment').click();
  await a.getByTestId('cancel-appointment-confirm').click();
  await expect(a.getByTestId('appointment-canceled')).toBeVisible();
  await expect(item.locator('a')).toHaveAttribute('data-canceled', 'true', { timeout: 3000 });
  await a.getByTestId('restore-appointment').click();
  await expect(a.getByTestId('appointment-canceled')).toHaveCount(0);
  await expect(item.locator('a')).toHaveAttribute('data-canceled', 'false', { timeout: 3000 });

  // B opens the appointment, starts a comment and opens the cancel step.
  await openLive(b, apptPath);
  await b.getByTestId('cancel-appointment').click();
  const step = b.locator('#keep-cancel details');
  await expect(step).toHaveAttribute('open', '');
  const comment = b.getByLabel('Add a comment');
  await comment.click();
  await comment.pressSequentially('Bring the blue blan');

  // A edits it: B sees the new title and place, and what B was doing stays.
  await a.goto(`${apptPath}/edit`);
  const form = a.getByTestId('appointment-form');
  await form.getByLabel('Title').fill(`${title} (moved)`);
  await form.getByLabel('Location').fill('The park');
  await a.getByTestId('appointment-submit').click();
  await expect(a.getByTestId('appointment-title')).toHaveText(`${title} (moved)`);
  await expect(b.getByTestId('appointment-title')).toHaveText(`${title} (moved)`, { timeout: 3000 });
  await expect(b.getByTestId('appointment-location')).toHaveText('The park');
  expect(new URL(b.url()).pathname).toBe(apptPath);
  await expect(comment).toHaveValue('Bring the blue blan');
  await expect(comment).toBeFocused();
  await expect(step).toHaveAttribute('open', '');
  await comment.pressSequentially('ket');
  await expect(comment).toHaveValue('Bring the blue blanket');

  // A deletes it: B's page says it went, and leads back to the calendar.
  await a.getByTestId('delete-appointment').click();
  await a.getByTestId('delete-appointment-confirm').click();
  await expect(b.getByTestId('appointment-gone')).toBeVisible({ timeout: 3000 });
  await expect(b.getByTestId('appointment-gone-back')).toHaveAttribute('href', groupPath);
  await expect(comment).toHaveValue('Bring the blue blanket');
});
