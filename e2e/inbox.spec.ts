// The inbox end to end (issue 10): an invitation reaches the invitee's
// inbox, the header bell counts it, it reaches their email through the
// task queue, opening it leads to the invitation, and "mark all read"
// clears the bell. Then axe on the inbox page.
import { test, expect, type Page } from '@playwright/test';
import AxeBuilder from '@axe-core/playwright';
import { signInWithOIDC, uniqueLocal, waitForMail } from './helpers';

async function signedIn(browser: import('@playwright/test').Browser, login: string): Promise<Page> {
  const ctx = await browser.newContext();
  const page = await ctx.newPage();
  await signInWithOIDC(page, login);
  return page;
}

test('inbox: an invitation reaches the bell, the inbox and the email', async ({ browser }) => {
  const a = await signedIn(browser, uniqueLocal('inbox-a'));
  const bLogin = uniqueLocal('inbox-b');
  const bEmail = `${bLogin}@example.test`;
  const b = await signedIn(browser, bLogin);
  const groupName = `Inbox ${uniqueLocal('g')}`;

  await b.goto('/inbox');
  await expect(b.getByTestId('inbox-empty')).toBeVisible();
  await expect(b.getByTestId('inbox-count')).toHaveCount(0);

  // A creates a group and invites B, who has an account.
  await a.goto('/groups/new');
  const form = a.getByTestId('create-group-form');
  await form.getByLabel('Group name').fill(groupName);
  await form.getByRole('button', { name: 'Create group' }).click();
  await expect(a.getByTestId('group-name')).toHaveText(groupName);
  const groupPath = new URL(a.url()).pathname.replace(/\/settings$/, '');
  const invite = a.getByTestId('invite-form');
  await invite.getByLabel('Email address').fill(bEmail);
  await invite.getByTestId('invite-submit').click();
  await expect(a).toHaveURL(new RegExp(`${groupPath}/members$`));

  // The queue delivers within moments: the bell counts it on B's next page.
  await expect(async () => {
    await b.goto('/inbox');
    await expect(b.getByTestId('inbox-count')).toHaveText('1', { timeout: 500 });
  }).toPass({ timeout: 15_000 });
  const item = b.getByTestId('inbox-item').filter({ hasText: groupName });
  await expect(item).toHaveAttribute('data-unread', 'true');
  await expect(item).toContainText('invited you to');

  const mail = await waitForMail(bEmail, new RegExp(`invited you to ${groupName}`));
  expect(mail.text).toContain(`${groupPath}/invite`);

  await new AxeBuilder({ page: b }).analyze().then((r) => expect(r.violations).toEqual([]));

  // Opening it leads to the invitation and marks it read.
  await item.getByTestId('inbox-open').click();
  await expect(b).toHaveURL(new RegExp(`${groupPath}/invite$`));
  await b.goto('/inbox');
  await expect(b.getByTestId('inbox-count')).toHaveCount(0);
  await expect(b.getByTestId('inbox-item').first()).toHaveAttribute('data-unread', 'false');
});

test('inbox: mark one read in place, then all read clears the bell', async ({ browser }) => {
  const a = await signedIn(browser, uniqueLocal('inbox-c'));
  const bLogin = uniqueLocal('inbox-d');
  const b = await signedIn(browser, bLogin);
  for (const n of [1, 2]) {
    await a.goto('/groups/new');
    const form = a.getByTestId('create-group-form');
    await form.getByLabel('Group name').fill(`Read all ${n} ${uniqueLocal('g')}`);
    await form.getByRole('button', { name: 'Create group' }).click();
    const invite = a.getByTestId('invite-form');
    await invite.getByLabel('Email address').fill(`${bLogin}@example.test`);
    await invite.getByTestId('invite-submit').click();
    await expect(a).toHaveURL(/\/members$/);
  }
  await expect(async () => {
    await b.goto('/inbox');
    await expect(b.getByTestId('inbox-count')).toHaveText('2', { timeout: 500 });
  }).toPass({ timeout: 15_000 });
  // One notice's tick marks it read where it is: no new page, the bell
  // counts one, and the focus is on its link.
  await b.evaluate(() => { (window as any).samePage = true; });
  const first = b.getByTestId('inbox-item').first();
  await first.getByRole('button', { name: 'Mark as read' }).click();
  await expect(first).toHaveAttribute('data-unread', 'false');
  await expect(b.getByTestId('inbox-count')).toHaveText('1');
  await expect(first.getByTestId('inbox-open')).toBeFocused();
  await expect(b.locator('[data-unread="true"]')).toHaveCount(1);
  expect(await b.evaluate(() => (window as any).samePage)).toBe(true);
  await b.getByTestId('inbox-read-all').click();
  await expect(b.getByTestId('flash')).toBeVisible();
  await expect(b.getByTestId('inbox-count')).toHaveCount(0);
  await expect(b.locator('[data-unread="true"]')).toHaveCount(0);
});
