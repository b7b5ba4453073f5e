// A shared list follows itself live: two members of a group on the same
// list, in two browsers. B adds an item and ticks another; A sees both
// within about a second, without a reload, while A's half-typed item in
// the add box (with the focus) and an item's open rename form survive
// each refresh. B renames the list and A's heading follows. Everyone
// signs in through the OIDC peer.
import { test, expect } from '@playwright/test';
import { groupOfTwo } from './helpers';

test('a list shows another member\'s changes live, and keeps what the viewer is doing', async ({ browser }) => {
  test.setTimeout(90_000);
  // A group with both, and a list with three items.
  const { a, b, groupPath } = await groupOfTwo(browser, 'live', 'Live family');
  await a.goto(`${groupPath}/lists`);
  await a.getByLabel('New list').fill('Groceries');
  await a.getByTestId('new-list-submit').click();
  const listPath = new URL(a.url()).pathname;
  const box = a.getByTestId('list-add-text');
  for (const item of ['Milk', 'Bread', 'Eggs']) {
    await box.fill(item);
    await box.press('Enter');
    await expect(a.getByTestId('list-open').getByTestId('list-item').last()).toContainText(item);
  }

  // A opens Eggs' rename form and types into it, then starts typing the
  // next item in the add box, and keeps the focus there. (A live refresh
  // still on its way from A's own last add does not take the form away:
  // the next test shows that.)
  const eggs = a.getByTestId('list-item').filter({ hasText: 'Eggs' });
  const edit = a.getByTestId('list-item-edit-text');
  await eggs.getByRole('link', { name: /Rename .*Eggs/ }).click();
  await expect(edit).toBeVisible();
  await edit.fill('Free-range eg');
  await box.click();
  await box.pressSequentially('Chee');
  await expect(box).toBeFocused();

  // B, on the same list, adds Apples and ticks Milk.
  await b.goto(listPath);
  await expect(a.getByTestId('list-live')).toBeAttached();
  const bBox = b.getByTestId('list-add-text');
  await bBox.fill('Apples');
  await bBox.press('Enter');
  await expect(b.getByTestId('list-open').getByTestId('list-item').last()).toContainText('Apples');
  await b.getByTestId('list-item').filter({ hasText: 'Milk' }).getByRole('checkbox', { name: 'Milk' }).click();

  // A sees both, without a reload (the URL and the page stay), in about
  // a second.
  await expect(a.getByTestId('list-open').getByTestId('list-item').filter({ hasText: 'Apples' })).toHaveCount(1, { timeout: 3000 });
  await expect(a.getByTestId('list-ticked').getByTestId('list-item')).toHaveText([/Milk/], { timeout: 3000 });
  expect(new URL(a.url()).pathname).toBe(listPath);

  // What A was doing is as A left it: the half-typed item, with the
  // focus; the rename form, with its text.
  await expect(box).toHaveValue('Chee');
  await expect(box).toBeFocused();
  await expect(edit).toBeVisible();
  await expect(edit).toHaveValue('Free-range eg');
  // A finishes both.
  await box.pressSequentially('se');
  await box.press('Enter');
  await expect(a.getByTestId('list-open').getByTestId('list-item').last()).toContainText('Cheese');
  // B sees A's item live too.
  await expect(b.getByTestId('list-open').getByTestId('list-item').filter({ hasText: 'Cheese' })).toHaveCount(1, { timeout: 3000 });

  // B renames the list: A's heading follows.
  await b.getByTestId('list-rename').locator('summary').click();
  await b.getByTestId('list-rename-form').getByRole('textbox').fill('Shop');
  await b.getByTestId('list-rename-submit').click();
  await expect(a.getByTestId('list-name')).toHaveText('Shop', { timeout: 3000 });
});

test('a live refresh asked for before a rename form opened does not take the form away', async ({ browser }) => {
  test.setTimeout(90_000);
  const { a, b, groupPath } = await groupOfTwo(browser, 'race', 'Race family');
  await a.goto(`${groupPath}/lists`);
  await a.getByLabel('New list').fill('Errands');
  await a.getByTestId('new-list-submit').click();
  const listPath = new URL(a.url()).pathname;
  const box = a.getByTestId('list-add-text');
  await box.fill('Post office');
  await box.press('Enter');
  await expect(a.getByTestId('list-open').getByTestId('list-item')).toHaveText([/Post office/]);
  await b.goto(listPath);
  await expect(a.getByTestId('list-live')).toBeAttached();
  await expect(a.locator('#list-refresh.htmx-request')).toHaveCount(0);

  // A's next live refresh that names no open form is held on its way
  // back until A has opened a rename form; then it is let through.
  let asked!: () => void;
  const refreshAsked = new Promise<void>((resolve) => { asked = resolve; });
  let release!: () => void;
  const released = new Promise<void>((resolve) => { release = resolve; });
  await a.route((url) => url.pathname === listPath, async (route) => {
    const req = route.request();
    if (req.headers()['hx-request'] && !new URL(req.url()).searchParams.has('editing')) {
      asked();
      await released;
    }
    await route.continue();
  });

  // B adds Stamps: A's page asks for the list again (held), and A opens
  // Post office's rename form meanwhile and types into it.
  const bBox = b.getByTestId('list-add-text');
  await bBox.fill('Stamps');
  await bBox.press('Enter');
  await refreshAsked;
  await a.getByTestId('list-item').filter({ hasText: 'Post office' }).getByRole('link', { name: /Rename .*Post office/ }).click();
  const edit = a.getByTestId('list-item-edit-text');
  await expect(edit).toBeVisible();
  await edit.fill('Post office, parcels');
  release();

  // A sees Stamps, and the form is still open with what A typed.
  await expect(a.getByTestId('list-open').getByTestId('list-item').filter({ hasText: 'Stamps' })).toHaveCount(1, { timeout: 5000 });
  await expect(a.locator('#list-refresh.htmx-request')).toHaveCount(0);
  await expect(edit).toBeVisible();
  await expect(edit).toHaveValue('Post office, parcels');
  await a.getByTestId('list-item-save').click();
  await expect(a.getByTestId('list-open').getByTestId('list-item')).toHaveText([/Post office, parcels/, /Stamps/]);
});

test('the Lists tab shows another member\'s lists and counts live, and keeps a half-typed name', async ({ browser }) => {
  test.setTimeout(90_000);
  const { a, b, groupPath } = await groupOfTwo(browser, 'tab', 'Live tab family');
  // A has the Lists tab open, starts naming a list, and keeps the focus.
  await a.goto(`${groupPath}/lists`);
  await expect(a.getByTestId('lists-empty')).toBeVisible();
  const name = a.getByLabel('New list');
  await name.pressSequentially('Hardw');
  await expect(name).toBeFocused();

  // B adds a list with two items.
  await b.goto(`${groupPath}/lists`);
  await b.getByLabel('New list').fill('Packing');
  await b.getByTestId('new-list-submit').click();
  const bBox = b.getByTestId('list-add-text');
  for (const item of ['Tent', 'Stove']) {
    await bBox.fill(item);
    await bBox.press('Enter');
    await expect(b.getByTestId('list-open').getByTestId('list-item').last()).toContainText(item);
  }

  // A's tab shows it with its count, without a reload; A's typing stays.
  const card = a.getByTestId('list-card').filter({ hasText: 'Packing' });
  await expect(card).toContainText('2 items to go', { timeout: 5000 });
  await expect(name).toHaveValue('Hardw');
  await expect(name).toBeFocused();

  // B ticks one: A's count follows.
  await b.getByTestId('list-item').filter({ hasText: 'Tent' }).getByRole('checkbox', { name: 'Tent' }).click();
  await expect(card).toContainText('1 item to go', { timeout: 5000 });
  expect(new URL(a.url()).pathname).toBe(`${groupPath}/lists`);
});
