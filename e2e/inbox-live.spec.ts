// The inbox live: a notice reaches the header's bell of every open tab,
// and the inbox page's list, without a reload; the browser holds one
// inbox stream for all its tabs; screen readers hear of it; axe passes on
// the page that changed; a notice marked read in one tab leaves the
// others' bells too.
import { test, expect } from '@playwright/test';
import { axeProblems, personWithOIDC, uniqueLocal } from './helpers';

test('inbox: a new notice reaches the bell of each tab and the inbox page, without a reload', async ({ browser }) => {
  const a = await personWithOIDC(browser, uniqueLocal('live-a'));
  const bLogin = uniqueLocal('live-b');
  const b = await personWithOIDC(browser, bLogin);
  const groupName = `Live inbox ${uniqueLocal('g')}`;

  // B has two tabs open: the forum, and the inbox, empty.
  // How many inbox streams are open at once, at most: a stream that ends
  // (a dropped connection the browser opens again, or the tab holding the
  // lock handing it on) is not a second one.
  const open = new Set<object>();
  let mostOpen = 0;
  b.context().on('request', (r) => {
    if (new URL(r.url()).pathname !== '/inbox/stream') return;
    open.add(r);
    mostOpen = Math.max(mostOpen, open.size);
  });
  for (const ended of ['requestfinished', 'requestfailed'] as const) {
    b.context().on(ended, (r) => open.delete(r));
  }
  await b.goto('/forum');
  const inboxTab = await b.context().newPage();
  await inboxTab.goto('/inbox');
  await expect(inboxTab.getByTestId('inbox-empty')).toBeVisible();
  await expect(b.getByTestId('inbox-count')).toHaveCount(0);
  // A mark on the inbox tab's window stays while it follows: no reload.
  await inboxTab.evaluate(() => { (window as unknown as { untouched: boolean }).untouched = true; });

  // A invites B.
  await a.goto('/groups/new');
  const create = a.getByTestId('create-group-form');
  await create.getByLabel('Group name').fill(groupName);
  await create.getByRole('button', { name: 'Create group' }).click();
  await a.getByTestId('invite-form').getByLabel('Email address').fill(`${bLogin}@example.test`);
  await a.getByTestId('invite-submit').click();
  await expect(a).toHaveURL(/\/members$/);

  // Both of B's tabs show it, neither reloaded.
  await expect(b.getByTestId('inbox-count')).toHaveText('1', { timeout: 15_000 });
  await expect(b.getByTestId('inbox-bell')).toHaveAttribute('aria-label', 'Inbox, 1 unread');
  await expect(b.getByTestId('inbox-news')).toHaveText('New notification: 1 unread');
  await expect(inboxTab.getByTestId('inbox-count')).toHaveText('1');
  // The tabs' titles say it too, as Discourse's and GitHub's do.
  await expect(b).toHaveTitle(/^\(1\) Forum/);
  await expect(inboxTab).toHaveTitle(/^\(1\) Inbox/);
  const item = inboxTab.getByTestId('inbox-item').filter({ hasText: groupName });
  await expect(item).toHaveAttribute('data-unread', 'true');
  await expect(inboxTab.getByTestId('inbox-read-all')).toBeVisible();
  expect(await inboxTab.evaluate(() => (window as unknown as { untouched?: boolean }).untouched)).toBe(true);
  // One stream at a time served both tabs.
  expect(mostOpen).toBe(1);
  expect(await axeProblems(inboxTab, 'inbox after a live notice')).toEqual([]);

  // Marking it read in place still works on the list the change brought.
  await item.getByTestId('inbox-mark-read').click();
  await expect(item).toHaveAttribute('data-unread', 'false');
  await expect(inboxTab.getByTestId('inbox-count')).toHaveCount(0);
  await expect(inboxTab).toHaveTitle(/^Inbox/);
  // The forum tab follows the mark too, without a reload.
  await expect(b.getByTestId('inbox-count')).toHaveCount(0);
  await expect(b).toHaveTitle(/^Forum/);
  expect(new URL(b.url()).pathname).toBe('/forum');
});
