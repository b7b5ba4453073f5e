// A group's shared lists end to end: an owner starts a list from the
// group's Lists tab, adds items with Enter (htmx keeps the box focused and
// empty), ticks one off (swapped in place, "ticked by"), renames and
// deletes items in place, clears the ticked ones, and a member of the
// group sees it all. Then axe on the Lists tab and the list page, and a
// phone's width. Everyone signs in through the OIDC peer.
import { test, expect, type Browser, type Page } from '@playwright/test';
import { axeProblems, signInWithOIDC, uniqueLocal } from './helpers';

async function signIn(browser: Browser, login: string): Promise<Page> {
  const ctx = await browser.newContext();
  const page = await ctx.newPage();
  await signInWithOIDC(page, login);
  return page;
}

test('a shared list: add with Enter, tick, rename, delete, clear, and axe', async ({ browser }) => {
  test.setTimeout(90_000);
  const ownerLogin = uniqueLocal('lists-owner');
  const memberLogin = uniqueLocal('lists-member');
  const owner = await signIn(browser, ownerLogin);
  const member = await signIn(browser, memberLogin);

  // A group with the member in it.
  await owner.goto('/groups/new');
  const create = owner.getByTestId('create-group-form');
  await create.getByLabel('Group name').fill('Lists family');
  await create.getByRole('button', { name: 'Create group' }).click();
  const groupPath = new URL(owner.url()).pathname.replace(/\/settings$/, '');
  await owner.getByTestId('invite-form').getByLabel('Email address').fill(`${memberLogin}@example.test`);
  await owner.getByTestId('invite-submit').click();
  await member.goto(`${groupPath}/invite`);
  await member.getByRole('button', { name: /accept/i }).click();

  // The Lists tab, empty, then a new list.
  await owner.goto(groupPath);
  await owner.getByTestId('tab-lists').click();
  await expect(owner.getByTestId('lists-empty')).toBeVisible();
  await owner.getByLabel('New list').fill('Groceries');
  await owner.getByTestId('new-list-submit').click();
  await expect(owner.getByTestId('list-name')).toHaveText('Groceries');
  const listPath = new URL(owner.url()).pathname;

  // Enter adds; the box stays focused and empties, so the next item can
  // be typed at once.
  const box = owner.getByTestId('list-add-text');
  await box.fill('Milk');
  await box.press('Enter');
  await expect(owner.getByTestId('list-open').getByTestId('list-item')).toHaveCount(1);
  await expect(box).toBeFocused();
  await expect(box).toHaveValue('');
  for (const item of ['Bread', 'Eggs', 'Apples']) {
    await owner.keyboard.type(item);
    await owner.keyboard.press('Enter');
    await expect(owner.getByTestId('list-open').getByTestId('list-item').last()).toContainText(item);
  }
  expect(new URL(owner.url()).pathname).toBe(listPath); // htmx, no page load
  // A refused item says why, beside the box.
  await box.fill('   ');
  await box.press('Enter');
  await expect(owner.getByTestId('list-add-form').getByTestId('field-error')).toContainText('200 characters');

  // The member ticks Bread: in place, struck through, "ticked by".
  await member.goto(listPath);
  const bread = member.getByTestId('list-item').filter({ hasText: 'Bread' });
  await bread.getByRole('checkbox', { name: 'Bread' }).click();
  await expect(bread).toHaveAttribute('data-ticked', 'true');
  await expect(bread.getByTestId('list-item-ticked-by')).toContainText('ticked by');
  await expect(member.getByTestId('list-clear')).toBeVisible();

  // The owner sees it after a reload, below what is still to do; renames
  // Eggs in place and deletes Apples at once.
  await owner.reload();
  await expect(owner.getByTestId('list-ticked').getByTestId('list-item')).toHaveText([/Bread/]);
  const eggs = owner.getByTestId('list-item').filter({ hasText: 'Eggs' });
  await eggs.getByRole('link', { name: /Rename .*Eggs/ }).click();
  const edit = owner.getByTestId('list-item-edit-text');
  await expect(edit).toBeFocused();
  await edit.fill('Free-range eggs');
  await edit.press('Enter');
  await expect(owner.getByTestId('list-open')).toContainText('Free-range eggs');
  await owner.getByRole('button', { name: /Delete .*Apples/ }).click();
  await expect(owner.getByTestId('list-item').filter({ hasText: 'Apples' })).toHaveCount(0);

  // axe on the list and the tab, light and dark; nothing wider than a
  // phone.
  const problems = await axeProblems(owner, 'list page');
  await owner.goto(`${groupPath}/lists`);
  await expect(owner.getByTestId('list-card')).toContainText('2 items to go');
  problems.push(...(await axeProblems(owner, 'lists tab')));
  expect(problems).toEqual([]);
  for (const path of [listPath, `${groupPath}/lists`]) {
    await owner.setViewportSize({ width: 390, height: 800 });
    await owner.goto(path);
    const overflow = await owner.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
    expect(overflow, `${path} overflows a phone`).toBeLessThanOrEqual(0);
  }

  // Clear ticked takes Bread off.
  await owner.goto(listPath);
  await owner.getByTestId('list-clear').click();
  await expect(owner.getByTestId('list-ticked').getByTestId('list-item')).toHaveCount(0);
  await expect(owner.getByTestId('list-open').getByTestId('list-item')).toHaveCount(2);
});
