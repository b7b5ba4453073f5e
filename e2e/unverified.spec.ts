// An account whose provider sends no verified email (Entra ID, or
// email_verified false; the OIDC peer does that for logins starting with
// "unverified-") uses groups fully: it sees only its own groups, creates
// one and invites, and once it confirms an address in account settings by
// a code, an invitation sent to that address reaches it (issue 9, item 1).
import { test, expect, type Page } from '@playwright/test';
import { signInWithOIDC, uniqueLocal, mailCount, readCode } from './helpers';

async function groupCards(page: Page): Promise<string[]> {
  await page.goto('/groups');
  return page.getByTestId('group-card').evaluateAll((els) => els.map((e) => e.getAttribute('data-group') || ''));
}

async function createGroup(page: Page, name: string): Promise<string> {
  await page.goto('/groups/new');
  const form = page.getByTestId('create-group-form');
  await form.getByLabel('Group name').fill(name);
  await form.getByRole('button', { name: 'Create group' }).click();
  await expect(page.getByTestId('group-name')).toHaveText(name);
  return new URL(page.url()).pathname.split('/')[2] || '';
}

test('an account without a verified email sees only its groups and reaches invitations once it confirms an address', async ({ browser }) => {
  const bobCtx = await browser.newContext();
  const bob = await bobCtx.newPage();
  await signInWithOIDC(bob, uniqueLocal('bob'));
  const bobsGroup = await createGroup(bob, `Bob's club ${uniqueLocal('g')}`);

  const eveCtx = await browser.newContext();
  const eve = await eveCtx.newPage();
  const login = uniqueLocal('unverified-eve');
  const email = `${login}@example.test`;
  await signInWithOIDC(eve, login);
  expect(await groupCards(eve)).not.toContain(bobsGroup);
  const familyName = `Eve's family ${uniqueLocal('g')}`;
  const family = await createGroup(eve, familyName);
  expect(await groupCards(eve)).toEqual([family]);

  // Bob invites Eve's address; it does not reach her account yet.
  await bob.goto(`/groups/${bobsGroup}/settings`);
  const form = bob.getByTestId('invite-form');
  await form.getByLabel('Email address').fill(email);
  await form.getByTestId('invite-submit').click();
  await expect(bob).toHaveURL(new RegExp(`/groups/${bobsGroup}/members$`));
  expect(await groupCards(eve)).toEqual([family]);

  // Eve confirms the address in her settings.
  await eve.goto('/account/settings');
  await eve.getByTestId('settings-email-add').click();
  const before = await mailCount(email);
  await eve.getByTestId('add-email-input').fill(email);
  await eve.getByTestId('add-email-send').click();
  const { code } = await readCode(email, before);
  await eve.getByTestId('add-email-code').fill(code);
  await eve.getByTestId('add-email-verify').click();
  await expect(eve.getByTestId('add-email-current')).toContainText(email);

  const cards = await groupCards(eve);
  expect(cards.sort()).toEqual([family, bobsGroup].sort());
  await eve.goto(`/groups/${family}`);
  await expect(eve.getByTestId('group-name')).toHaveText(familyName);
  await eveCtx.close();
  await bobCtx.close();
});
