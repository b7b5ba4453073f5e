// Events (issue 12, first part): an organizer creates and publishes an
// event, a member registers; axe checks the listing, the event page and
// the organizer's form, light and dark. The admin is an organizer for now
// (login "admin" at the OIDC peer is admin@example.test).
import { test, expect, type Page } from '@playwright/test';
import AxeBuilder from '@axe-core/playwright';
import { signInWithOIDC, uniqueLocal } from './helpers';

async function axe(page: Page, name: string): Promise<string[]> {
  const results = await new AxeBuilder({ page }).analyze();
  return results.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${name}: ${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
}

test('an organizer publishes an event, a member registers, and axe passes on the events pages', async ({ browser }) => {
  test.setTimeout(90_000);
  const title = `Jazz night ${uniqueLocal('ev')}`;
  const orgCtx = await browser.newContext();
  const org = await orgCtx.newPage();
  await signInWithOIDC(org, 'admin');
  await org.goto('/events/new');
  const problems: string[] = [];
  for (const scheme of ['light', 'dark'] as const) {
    await org.emulateMedia({ colorScheme: scheme });
    problems.push(...(await axe(org, `form (${scheme})`)));
  }
  await org.fill('#event-title', title);
  await org.selectOption('#event-category', 'concert');
  await org.fill('#event-start', '2031-03-07T20:00');
  await org.fill('#event-end', '2031-03-07T23:00');
  await org.fill('#event-capacity', '1');
  await org.getByTestId('event-submit').click();
  await org.getByTestId('event-publish').click();
  await expect(org.getByTestId('event-unpublish')).toBeVisible();
  const eventPath = new URL(org.url()).pathname;

  const memberCtx = await browser.newContext();
  const member = await memberCtx.newPage();
  await signInWithOIDC(member, uniqueLocal('evm'));
  await member.goto('/events?category=concert');
  await expect(member.getByTestId('event-card').filter({ hasText: title })).toBeVisible();
  await member.goto(eventPath);
  await member.getByTestId('event-register').click();
  await expect(member.getByTestId('registration-state')).toHaveAttribute('data-state', 'going');
  for (const scheme of ['light', 'dark'] as const) {
    await member.emulateMedia({ colorScheme: scheme });
    await member.goto('/events');
    problems.push(...(await axe(member, `listing (${scheme})`)));
    await member.goto(eventPath);
    problems.push(...(await axe(member, `event page (${scheme})`)));
  }
  expect(problems).toEqual([]);
  await orgCtx.close();
  await memberCtx.close();
});
