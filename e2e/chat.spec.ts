// Chat end to end (issue 13, first part): two people in two browsers
// in a room; A sends and B sees it without reloading; B drops off the
// network, A sends three messages, and B comes back with exactly those
// three, each once. B's reaction to A's message reaches A live. axe runs
// on the chat list and the room. Then a
// second instance of the app on the same store: a message sent through
// one instance appears live in a browser on the other. Then a group's
// chat, which a removed member loses, and a private chat started from
// the group's roster, whose "seen by" appears live. Last, a message
// saved for later: marked for its reader alone, listed in Saved
// messages (axe runs there), opened from it and removed; "Remind me
// about this" in a message's menu (axe runs with it open), which saves
// it with its reminder; and a search of all one's chats (axe runs
// there) that opens what it found.
import { test, expect, type Page } from '@playwright/test';
import { signInWithCode, uniqueEmail, uniqueLocal, axeProblems, personWithOIDC } from './helpers';

async function sendMessage(page: Page, text: string) {
  await page.locator('#chat-body').fill(text);
  await page.getByTestId('chat-send').click();
  await expect(page.locator('#chat-body')).toHaveValue('');
}

test('a message reaches the other person live, and a dropped connection resumes with exactly what it missed', async ({ browser }) => {
  test.setTimeout(90_000);
  const a = await personWithOIDC(browser, uniqueLocal('chat-a'));
  const b = await personWithOIDC(browser, uniqueLocal('chat-b'));
  const problems: string[] = [];
  await b.goto('/chat');
  await expect(b.getByTestId('chat-item').filter({ hasText: '#general' })).toBeVisible();
  problems.push(...(await axeProblems(b, 'chat list')));

  const room = '/chat/room-general';
  await a.goto(room);
  await b.goto(room);
  problems.push(...(await axeProblems(b, 'room')));
  const tag = uniqueLocal('m');
  await sendMessage(a, `hello ${tag}`);
  await expect(b.getByTestId('chat-message').filter({ hasText: `hello ${tag}` })).toHaveCount(1);
  await expect(a.getByTestId('chat-message').filter({ hasText: `hello ${tag}` })).toHaveCount(1);

  // B answers with a reaction from the fold under the message; A sees it
  // without reloading, and adds hers by pressing it.
  const hello = (p: Page) => p.getByTestId('chat-message').filter({ hasText: `hello ${tag}` });
  await hello(b).hover();
  // Escape closes the reaction menu and gives the focus back to its
  // button; opened again, a choice reacts.
  await hello(b).getByTestId('chat-react-open').click();
  await hello(b).getByTestId('chat-react-choice').first().focus();
  await b.keyboard.press('Escape');
  await expect(hello(b).locator('details.chat-react')).not.toHaveAttribute('open', '');
  await expect(hello(b).getByTestId('chat-react-open')).toBeFocused();
  await hello(b).getByTestId('chat-react-open').click();
  await hello(b).getByTestId('chat-react-choice').first().click();
  await expect(hello(b).getByTestId('chat-reaction')).toHaveAttribute('aria-pressed', 'true');
  await expect(hello(a).getByTestId('chat-reaction')).toContainText('1');
  await hello(a).getByTestId('chat-reaction').click();
  await expect(hello(b).getByTestId('chat-reaction')).toContainText('2');
  await expect(hello(a).getByTestId('chat-reaction')).toHaveAttribute('aria-pressed', 'true');
  problems.push(...(await axeProblems(b, 'room with reactions')));

  // Other tests may write in #general meanwhile (two workers): what
  // counts is this test's messages, each once.
  const ours = b.getByTestId('chat-message').filter({ hasText: tag });
  await expect(ours).toHaveCount(1);
  await b.context().setOffline(true);
  for (const n of [1, 2, 3]) await sendMessage(a, `missed ${n} ${tag}`);
  await b.waitForTimeout(1500);
  await b.context().setOffline(false);
  for (const n of [1, 2, 3]) {
    await expect(b.getByTestId('chat-message').filter({ hasText: `missed ${n} ${tag}` })).toHaveCount(1, { timeout: 20_000 });
  }
  await b.waitForTimeout(1000);
  await expect(ours).toHaveCount(4);
  expect(problems).toEqual([]);
});

test('a message sent through one instance appears live in a browser on another instance of the app', async ({ browser }) => {
  test.setTimeout(90_000);
  const second = process.env.E2E_SECOND_URL;
  expect(second, 'the second instance (playwright.config.ts)').toBeTruthy();
  const a = await personWithOIDC(browser, uniqueLocal('chat-one'));
  const ctx2 = await browser.newContext({ baseURL: second });
  const b = await ctx2.newPage();
  await signInWithCode(b, uniqueEmail('chat-two'));
  const room = '/chat/room-random';
  await b.goto(room);
  await expect(b.getByTestId('chat-page')).toBeVisible();
  expect(new URL(b.url()).origin).toBe(second);
  await a.goto(room);
  const text = `across instances ${uniqueLocal('x')}`;
  await sendMessage(a, text);
  await expect(b.getByTestId('chat-message').filter({ hasText: text })).toHaveCount(1, { timeout: 10_000 });
});

test('a group chat for its members, lost on removal; a private chat started from the roster and from a profile', async ({ browser }) => {
  test.setTimeout(120_000);
  const stamp = uniqueLocal('gc');
  const groupName = `Choir ${stamp}`;
  const a = await personWithOIDC(browser, `${stamp}-a`);
  const bLogin = `${stamp}-b`;
  const b = await personWithOIDC(browser, bLogin);

  // A creates the group and invites B, who accepts.
  await a.goto('/');
  await a.getByTestId('new-group').click();
  const form = a.getByTestId('create-group-form');
  await form.getByLabel('Group name').fill(groupName);
  await form.getByRole('button', { name: 'Create group' }).click();
  const groupPath = new URL(a.url()).pathname.replace(/\/settings$/, '');
  const invite = a.getByTestId('invite-form');
  await invite.getByLabel('Email address').fill(`${bLogin}@example.test`);
  await invite.getByTestId('invite-submit').click();
  await b.goto('/');
  await b.getByTestId('group-card').filter({ hasText: groupName }).getByTestId('group-accept').click();
  await expect(b.locator('[data-testid="group-card"][data-status="active"]').filter({ hasText: groupName })).toBeVisible();

  // The group's chat, from its Chat tab: B sees A's message live.
  await b.goto(groupPath);
  await b.getByTestId('tab-chat').click();
  await expect(b.getByTestId('chat-page')).toBeVisible();
  const chatPath = new URL(b.url()).pathname;
  await a.goto(chatPath);
  await sendMessage(a, `rehearsal moved ${stamp}`);
  await expect(b.getByTestId('chat-message').filter({ hasText: `rehearsal moved ${stamp}` })).toHaveCount(1);

  // A private chat with B from the group's roster.
  await a.goto(`${groupPath}/members`);
  await a.getByTestId('roster-row').filter({ hasText: bLogin }).getByTestId('member-message').click();
  await expect(a.getByTestId('chat-page')).toBeVisible();
  const dmPath = new URL(a.url()).pathname;
  expect(dmPath).toMatch(/^\/chat\/dm-/);
  // The same chat from B's page (their name in the roster links it).
  await a.goto(`${groupPath}/members`);
  await a.getByTestId('roster-row').filter({ hasText: bLogin }).getByTestId('member-name').click();
  await expect(a.getByTestId('person-page')).toBeVisible();
  expect(await axeProblems(a, 'person page')).toEqual([]);
  await a.getByTestId('person-message').click();
  expect(new URL(a.url()).pathname).toBe(dmPath);
  await sendMessage(a, `just us ${stamp}: a long enough message that its preview is cut short on a phone's screen`);
  // B's home page shows it among their chats, unread, and fits a phone.
  await b.setViewportSize({ width: 390, height: 844 });
  await b.goto('/');
  const homeItem = b.getByTestId('home-chat').getByTestId('chat-item').filter({ hasText: `just us ${stamp}` });
  await expect(homeItem.getByTestId('chat-unread')).toBeVisible();
  expect(await b.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
  await b.setViewportSize({ width: 1280, height: 720 }); // Playwright's default
  await b.goto('/chat');
  const dmItem = b.getByTestId('chat-item').filter({ hasText: `just us ${stamp}` });
  await expect(dmItem).toBeVisible();
  // B opens it: A, still in the chat, sees "Seen by" appear live.
  await expect(a.getByTestId('chat-seen')).toBeHidden();
  await dmItem.getByRole('link').click();
  await expect(b.getByTestId('chat-page')).toBeVisible();
  await expect(a.getByTestId('chat-seen')).toBeVisible({ timeout: 10_000 });

  // A removes B while B has the group's chat open: B's stream ends, the
  // page reloads, and the chat is no longer B's.
  await b.goto(chatPath);
  await expect(b.getByTestId('chat-page')).toBeVisible();
  await a.goto(`${groupPath}/members`);
  const row = a.getByTestId('roster-row').filter({ hasText: bLogin });
  await row.getByTestId('member-remove').click();
  await row.getByTestId('member-remove-confirm').click();
  await expect(a.getByTestId('roster-row').filter({ hasText: bLogin })).toHaveAttribute('data-status', 'removed');
  await expect(b.getByTestId('error-page')).toBeVisible({ timeout: 15_000 });
  const res = await b.goto(chatPath);
  expect(res?.status()).toBe(404);
});

test('the chat list updates live: a new message shows as unread without a reload', async ({ browser }) => {
  const a = await personWithOIDC(browser, uniqueLocal('list-a'));
  const b = await personWithOIDC(browser, uniqueLocal('list-b'));
  await b.goto('/chat');
  const random = b.getByTestId('chat-item').filter({ hasText: '#random' });
  await expect(random).toBeVisible();
  const text = `news ${uniqueLocal('n')}`;
  await a.goto('/chat/room-random');
  await sendMessage(a, text);
  await expect(b.getByTestId('chat-item').filter({ hasText: text })).toBeVisible({ timeout: 10_000 });
  await expect(b.getByTestId('chat-item').filter({ hasText: text }).getByTestId('chat-unread')).toBeVisible();
});

test('rooms: leave one from its page, find it in the directory and join again', async ({ browser }) => {
  const b = await personWithOIDC(browser, uniqueLocal('dir-b'));
  await b.goto('/chat/room-random');
  await b.getByTestId('room-leave').click();
  await expect(b.getByTestId('chat-directory')).toBeVisible();
  const random = b.locator('[data-testid="directory-room"][data-room="room-random"]');
  await expect(random).toHaveAttribute('data-in', 'false');
  const problems = await axeProblems(b, 'directory');
  await b.goto('/chat');
  await expect(b.getByTestId('chat-item').filter({ hasText: '#random' })).toHaveCount(0);
  await b.getByTestId('chat-directory-link').first().click();
  await random.getByTestId('room-join').click();
  await expect(b.getByTestId('chat-page')).toBeVisible();
  await b.goto('/chat');
  await expect(b.getByTestId('chat-item').filter({ hasText: '#random' })).toBeVisible();
  expect(problems).toEqual([]);
});

test('a message saved for later is marked for its reader alone, listed in Saved messages, opened from there and removed', async ({ browser }) => {
  test.setTimeout(90_000);
  const a = await personWithOIDC(browser, uniqueLocal('save-a'));
  const b = await personWithOIDC(browser, uniqueLocal('save-b'));
  const room = '/chat/room-random';
  const tag = uniqueLocal('keep');
  await a.goto(room);
  await sendMessage(a, `the door code is in the wiki ${tag}`);
  await b.goto(room);
  const note = (p: Page) => p.getByTestId('chat-message').filter({ hasText: tag });
  await note(b).hover();
  await note(b).getByTestId('chat-save').click();
  await expect(note(b).getByTestId('chat-saved')).toBeVisible();
  await expect(note(b).getByTestId('chat-save')).toHaveText('Remove from saved');
  await a.reload();
  await expect(note(a).getByTestId('chat-saved')).toHaveCount(0);

  await b.goto('/chat');
  await b.getByTestId('chat-saved-link').click();
  await expect(b).toHaveURL(/\/chat\/saved$/);
  const item = b.getByTestId('chat-saved-item').filter({ hasText: tag });
  await expect(item).toContainText('#random');
  expect(await axeProblems(b, 'saved messages')).toEqual([]);
  await item.getByTestId('chat-saved-open').click();
  await expect(b).toHaveURL(/\/chat\/room-random\?after=\d+#m-\d+$/);
  await expect(note(b)).toBeVisible();

  await b.goto('/chat/saved');
  await b.getByTestId('chat-saved-item').filter({ hasText: tag }).getByTestId('chat-saved-remove').click();
  await expect(b.getByTestId('flash')).toContainText('Removed from your saved messages');
  await expect(b.getByTestId('chat-saved-item').filter({ hasText: tag })).toHaveCount(0);
});

test('"Remind me about this" in a message\'s menu saves it with a reminder, shown on the message and in Saved messages', async ({ browser }) => {
  test.setTimeout(90_000);
  const a = await personWithOIDC(browser, uniqueLocal('remind-a'));
  const b = await personWithOIDC(browser, uniqueLocal('remind-b'));
  const room = '/chat/room-random';
  const tag = uniqueLocal('later');
  await a.goto(room);
  await sendMessage(a, `send the invoice by Friday ${tag}`);
  await b.goto(room);
  const note = (p: Page) => p.getByTestId('chat-message').filter({ hasText: tag });
  await note(b).hover();
  await note(b).getByTestId('chat-remind').click();
  const form = note(b).getByTestId('chat-remind-form');
  await form.getByLabel('Remind me').selectOption('tomorrow');
  expect(await axeProblems(b, 'a message\'s reminder')).toEqual([]);
  await form.getByTestId('chat-remind-form-submit').click();
  await expect(b.getByTestId('flash')).toContainText('The reminder is set');
  await expect(note(b).getByTestId('chat-saved')).toBeVisible();
  await expect(note(b).getByTestId('chat-reminder')).toContainText('Reminder');

  await b.goto('/chat/saved');
  const item = b.getByTestId('chat-saved-item').filter({ hasText: tag });
  await expect(item.getByTestId('chat-saved-reminder')).toBeVisible();
});

test('a search of all one\'s chats from the chat list finds a message in a room and opens it', async ({ browser }) => {
  test.setTimeout(60_000);
  const a = await personWithOIDC(browser, uniqueLocal('find-a'));
  const b = await personWithOIDC(browser, uniqueLocal('find-b'));
  const tag = uniqueLocal('needle');
  await a.goto('/chat/room-random');
  await sendMessage(a, `the spare keys are with ${tag}`);
  await b.goto('/chat');
  await b.getByTestId('chat-search-all-link').click();
  await b.getByTestId('chat-search-q').fill(`${tag} keys`);
  await b.getByTestId('chat-search-submit').click();
  const found = b.getByTestId('chat-found-item');
  await expect(found).toHaveCount(1);
  await expect(found.getByTestId('chat-found-chat')).toHaveText('#random');
  await expect(b.getByTestId('chat-search-note')).toBeVisible();
  expect(await axeProblems(b, 'search of all chats')).toEqual([]);
  await found.getByTestId('chat-found-open').click();
  await expect(b).toHaveURL(/\/chat\/room-random\?after=\d+#m-\d+$/);
  await expect(b.getByTestId('chat-message').filter({ hasText: tag })).toBeVisible();
});
