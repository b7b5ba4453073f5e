// Events end to end (issue 12): an organizer creates an event with two
// seats and publishes it; three people register and the third waits at
// position 1; one cancels and the third is going, told in the inbox; the
// organizer checks an attendee in from the ticket's code; the .ics
// downloads with the event. axe runs on the listing (cards and month),
// the event page, the ticket and the organizer's form and check-in,
// light and dark. The admin is an organizer (login "admin" at the OIDC
// peer is admin@example.test).
import { test, expect, type Browser, type Page } from '@playwright/test';
import AxeBuilder from '@axe-core/playwright';
import { readFileSync } from 'node:fs';
import { signInWithOIDC, uniqueLocal } from './helpers';

async function axe(page: Page, name: string): Promise<string[]> {
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

async function person(browser: Browser, login: string): Promise<Page> {
  const ctx = await browser.newContext();
  const page = await ctx.newPage();
  await signInWithOIDC(page, login);
  return page;
}

test('two seats, three people: the waitlist moves up on a cancellation, check-in, .ics and axe on every events page', async ({ browser }) => {
  test.setTimeout(120_000);
  const title = `Jazz night ${uniqueLocal('ev')}`;
  const problems: string[] = [];

  const org = await person(browser, 'admin');
  await org.goto('/events/new');
  problems.push(...(await axe(org, 'new event form')));
  await org.fill('#event-title', title);
  await org.selectOption('#event-category', 'concert');
  await org.fill('#event-start', '2031-03-07T20:00');
  await org.fill('#event-end', '2031-03-07T23:00');
  await org.fill('#event-place', 'Blue Note');
  await org.fill('#event-capacity', '2');
  await org.getByTestId('event-submit').click();
  await org.getByTestId('event-publish').click();
  await expect(org.getByTestId('event-unpublish')).toBeVisible();
  const eventPath = new URL(org.url()).pathname;

  const [ann, bob, cat] = [
    await person(browser, uniqueLocal('ev-ann')),
    await person(browser, uniqueLocal('ev-bob')),
    await person(browser, uniqueLocal('ev-cat')),
  ];
  await ann.goto('/events?category=concert');
  await expect(ann.getByTestId('event-card').filter({ hasText: title })).toContainText('Only 2 seats left');
  for (const p of [ann, bob]) {
    await p.goto(eventPath);
    await p.getByTestId('event-register').click();
    await expect(p.getByTestId('registration-state')).toHaveAttribute('data-state', 'going');
  }
  await cat.goto(eventPath);
  await expect(cat.getByTestId('event-register')).toContainText('waitlist');
  await cat.getByTestId('event-register').click();
  await expect(cat.getByTestId('registration-state')).toHaveAttribute('data-state', 'waitlist');
  await expect(cat.getByTestId('registration-state')).toContainText('number 1 of 1');
  await cat.goto('/events?category=concert');
  await expect(cat.getByTestId('event-card').filter({ hasText: title })).toContainText('Full · 1 waiting');
  problems.push(...(await axe(cat, 'listing')));
  await cat.goto('/events?view=month&month=2031-03');
  await expect(cat.getByTestId('month-day').filter({ hasText: title })).toHaveAttribute('data-date', '2031-03-07');
  problems.push(...(await axe(cat, 'month')));

  // Bob gives up his seat: it goes to Cat in the same step.
  await bob.goto(eventPath);
  await bob.getByTestId('event-cancel').click();
  await bob.getByTestId('event-cancel-confirm').click();
  await expect(bob.getByTestId('register-form')).toBeVisible();
  await cat.goto(eventPath);
  await expect(cat.getByTestId('registration-state')).toHaveAttribute('data-state', 'going');
  problems.push(...(await axe(cat, 'event page')));
  await expect(async () => {
    await cat.goto('/inbox');
    await expect(cat.getByTestId('inbox-item').filter({ hasText: 'A seat opened' })).toHaveCount(1, { timeout: 500 });
  }).toPass({ timeout: 15_000 });

  // Cat's ticket; the organizer scans its code and checks her in.
  await cat.goto(eventPath);
  await cat.getByTestId('ticket-link').click();
  await expect(cat.getByTestId('ticket-qr')).toBeVisible();
  problems.push(...(await axe(cat, 'ticket')));
  const code = (await cat.getByTestId('ticket-code').innerText()).trim();
  await org.goto(`${eventPath}/check-in?ticket=${code}`);
  problems.push(...(await axe(org, 'check-in')));
  const found = org.getByTestId('checkin-found').getByTestId('attendee');
  await expect(found).toHaveAttribute('data-ticket', code);
  await found.getByTestId('checkin-mark').click();
  await expect(org.getByTestId('checkin-found').getByTestId('attendee')).toHaveAttribute('data-attended', 'true');
  await org.goto(`${eventPath}/check-in`);
  await expect(org.getByTestId('checkin-count')).toContainText('1 of 2');
  await cat.reload();
  await expect(cat.getByTestId('ticket-attended')).toBeVisible();

  // The .ics downloads, with the event and its confirmed status.
  await ann.goto(eventPath);
  const [download] = await Promise.all([ann.waitForEvent('download'), ann.getByTestId('event-ics').click()]);
  const ics = readFileSync(await download.path(), 'utf8');
  expect(ics).toContain(`SUMMARY:${title}`);
  expect(ics).toContain('STATUS:CONFIRMED');

  expect(problems).toEqual([]);
});
