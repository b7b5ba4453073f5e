// The store end to end: an admin puts up a sold-out item with a picture,
// and a second under its form;
// a member asks to hear when it is back; the admin restocks it, and the
// member finds the notice in the inbox and the item for sale, with the
// way to the official store. Then axe on the store's pages.
import path from 'node:path';
import { test, expect } from '@playwright/test';
import { storeAdminEmail, axeProblems, newSignedInPage, personWithOIDC, uniqueLocal } from './helpers';

const picture = path.join(__dirname, 'fixtures', 'avatar.png');

test('store: sold out, asked for, restocked, told', async ({ browser }) => {
  // Two people, an upload and the queue's notice: about 20 s alone, more
  // on a busy machine.
  test.setTimeout(60_000);
  const title = `Tour vinyl ${uniqueLocal('s').slice(-6)}`;
  const { page: admin } = await newSignedInPage(browser, storeAdminEmail);

  await admin.goto('/store');
  await admin.getByTestId('store-new').click();
  const form = admin.getByTestId('store-form');
  await form.getByLabel('Name').fill(title);
  await form.getByLabel('Department').selectOption('music');
  await form.getByLabel('Price').fill('32');
  await form.getByLabel('Currency').fill('GBP');
  await form.getByLabel('In stock').fill('0');
  await form.getByLabel('Link to buy it').fill('https://shop.example.test/vinyl');
  await form.getByLabel('Description').fill('On **180 g** vinyl.');
  await form.getByLabel('Picture', { exact: true }).setInputFiles(picture);
  await admin.getByTestId('item-save').click();
  await expect(admin.getByTestId('flash')).toContainText('Item added');
  const itemURL = new URL(admin.url()).pathname;
  await expect(admin.getByTestId('sold-out')).toBeVisible();

  // A member asks to hear when it is back.
  const mia = await personWithOIDC(browser, uniqueLocal('store-m'));
  await mia.goto('/store?category=music');
  await mia.getByTestId('store-card').filter({ hasText: title }).getByRole('link', { name: title }).click();
  await expect(mia.getByTestId('item-buy')).toHaveCount(0);
  await mia.getByTestId('item-alert').click();
  await expect(mia.getByTestId('item-alert-on')).toBeVisible();

  // The admin restocks it; the member is told, and can buy it.
  await admin.goto(`${itemURL}/edit`);
  // A second picture, under the form, for the item's page.
  await admin.getByTestId('store-pictures').getByLabel('Add a picture').setInputFiles(picture);
  await admin.getByTestId('store-pictures').getByTestId('photo-submit').click();
  await expect(admin.getByTestId('flash')).toContainText('Picture added');
  await expect(admin.getByTestId('store-pictures').getByTestId('photo-item')).toHaveCount(1);
  await admin.getByTestId('store-form').getByLabel('In stock').fill('25');
  await admin.getByTestId('item-save').click();
  await expect(admin.getByTestId('flash')).toContainText('Item saved');
  await expect(async () => {
    await mia.goto('/inbox');
    await expect(mia.getByTestId('inbox-item').filter({ hasText: `Back in the store: ${title}` })).toBeVisible({ timeout: 1000 });
  }).toPass({ timeout: 20_000 });
  await mia.getByTestId('inbox-item').filter({ hasText: title }).getByTestId('inbox-open').click();
  await expect(mia.getByTestId('item-title')).toHaveText(title);
  await expect(mia.getByTestId('item-buy')).toHaveAttribute('href', 'https://shop.example.test/vinyl');
  await expect(mia.getByTestId('item-description').locator('strong')).toHaveText('180 g');
  expect(await mia.getByTestId('item-image').evaluate((el: HTMLImageElement) => el.naturalWidth)).toBeGreaterThan(0);
  // Its own picture and the second, small under it: the second, chosen,
  // takes the large one's place.
  const thumbs = mia.getByTestId('item-pictures').locator('a');
  await expect(thumbs).toHaveCount(2);
  const second = thumbs.nth(1);
  await second.scrollIntoViewIfNeeded();
  await expect.poll(() => second.locator('img').evaluate((el: HTMLImageElement) => el.naturalWidth)).toBeGreaterThan(0);
  await second.click();
  await expect(mia.getByTestId('item-image')).toHaveAttribute('src', (await second.getAttribute('href'))!);
  await expect(second).toHaveAttribute('aria-current', 'true');
  expect(new URL(mia.url()).pathname).toBe(itemURL);

  const problems: string[] = [];
  for (const [page, p] of [[mia, '/store'], [mia, itemURL], [admin, `${itemURL}/edit`], [admin, '/store/new'], [admin, '/store/hidden']] as const) {
    await page.goto(p);
    problems.push(...(await axeProblems(page, p)));
  }
  expect(problems).toEqual([]);
});
