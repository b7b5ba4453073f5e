// "Your data" end to end: a member downloads their data as a zip, then
// deletes their account by typing their email; they land signed out on
// the "being deleted" page, their old session is gone, the mail says the
// account was deleted, and the address signs up again to a new account.
// (That sign-in is refused while the account is still being erased is
// the Go tests' to show: here the server erases it within a moment.)
import { readFileSync } from 'node:fs';
import { test, expect } from '@playwright/test';
import { axeProblems, expectSignedOut, signInWithCode, uniqueEmail, waitForMail } from './helpers';

test('a member downloads their data and deletes their account', async ({ page }) => {
  const email = uniqueEmail('leaving');
  await signInWithCode(page, email);
  await page.goto('/account/data');
  expect(await axeProblems(page, 'your data')).toEqual([]);

  const [download] = await Promise.all([page.waitForEvent('download'), page.getByTestId('data-download').click()]);
  expect(download.suggestedFilename()).toMatch(/^harmony-data-\d{4}-\d{2}-\d{2}\.zip$/);
  const zipPath = await download.path();
  expect(zipPath).toBeTruthy();
  const bytes = readFileSync(zipPath!);
  expect(bytes.subarray(0, 2).toString()).toBe('PK');
  expect(bytes.includes(Buffer.from('account/profile.json'))).toBe(true);
  expect(bytes.includes(Buffer.from('README.txt'))).toBe(true);

  await page.getByTestId('data-delete-link').click();
  await expect(page).toHaveURL(/\/account\/data\/delete$/);
  expect(await axeProblems(page, 'delete your account')).toEqual([]);

  // A wrong word is refused in place, and nothing happens.
  await page.getByTestId('delete-confirm-input').fill('someone-else@example.test');
  await page.getByTestId('delete-account-submit').click();
  await expect(page.locator('#confirm-error')).toBeVisible();
  await expect(page.getByTestId('user-menu')).toBeVisible();

  await page.getByTestId('delete-confirm-input').fill(email);
  await page.getByTestId('delete-account-submit').click();
  await expect(page).toHaveURL(/\/account\/deleted$/);
  await expect(page.getByTestId('account-deleted')).toBeVisible();
  await expect(page.getByTestId('user-menu')).toHaveCount(0);
  await expectSignedOut(page);

  await waitForMail(email, /deleted/);
  // The address starts afresh: a new account, with none of the old.
  await signInWithCode(page, email);
  await page.goto('/account');
  await expect(page.getByTestId('account-profile')).toBeVisible();
});
