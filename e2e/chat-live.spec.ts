// Chat's live updates keep what the reader is doing: two people in a
// room; A has the reaction picker of B's message open, with a search
// typed in it, and B reacts to that message, edits it and takes the
// reaction back. A's message shows each new count and the new text, and
// the picker stays open, with A's search and the focus in its box, as
// Zulip and Slack keep theirs. The same for the delete question A has
// open on her own message. A reply quotes its message, live for the
// other person, and follows its deletion; a pinned message shows under
// the chat's name for the other member, live.
import { test, expect, type Page } from '@playwright/test';
import { axeProblems, groupOfTwo, uniqueLocal, personWithOIDC } from './helpers';

test('a live update of a message keeps its open picker, the search typed in it and the focus', async ({ browser }) => {
  test.setTimeout(90_000);
  const a = await personWithOIDC(browser, uniqueLocal('live-a'));
  const b = await personWithOIDC(browser, uniqueLocal('live-b'));
  const room = '/chat/room-general';
  await a.goto(room);
  await b.goto(room);
  const tag = uniqueLocal('m');
  await b.locator('#chat-body').fill(`pick ${tag}`);
  await b.getByTestId('chat-send').click();
  const msg = (p: Page) => p.getByTestId('chat-message').filter({ hasText: tag });
  await expect(msg(a)).toHaveCount(1);

  // A opens "More emoji" and searches.
  await msg(a).hover();
  await msg(a).getByTestId('chat-react-open').click();
  await msg(a).getByTestId('chat-react-more').click();
  const q = msg(a).getByTestId('chat-react-q');
  await q.fill('hear');
  await expect(msg(a).getByTestId('chat-react-emoji')).toContainText('❤');
  await expect(q).toBeFocused();

  // B reacts to it: A sees the count, and her picker stays as it was.
  await msg(b).hover();
  await msg(b).getByTestId('chat-react-open').click();
  await msg(b).getByTestId('chat-react-choice').first().click();
  await expect(msg(b).getByTestId('chat-reaction')).toHaveAttribute('aria-pressed', 'true');
  await expect(msg(a).getByTestId('chat-reaction')).toContainText('1');
  await expect(msg(a).locator('details.chat-react')).toHaveAttribute('open', '');
  await expect(q).toHaveValue('hear');
  await expect(q).toBeFocused();
  await expect(msg(a).getByTestId('chat-react-emoji')).toContainText('❤');

  // B edits it: A sees the new text, the picker still open and focused.
  await msg(b).hover();
  await msg(b).getByTestId('chat-edit').click();
  await msg(b).getByTestId('chat-edit-form').locator('textarea').fill(`picked ${tag}`);
  await msg(b).getByTestId('chat-edit-save').click();
  await expect(msg(a).locator('.chat-body')).toHaveText(`picked ${tag}`);
  await expect(msg(a).getByTestId('chat-edited')).toBeVisible();
  await expect(msg(a).locator('details.chat-react')).toHaveAttribute('open', '');
  await expect(q).toHaveValue('hear');
  await expect(q).toBeFocused();

  // B takes the reaction back: A's count goes, the picker stays.
  await msg(b).getByTestId('chat-reaction').click();
  await expect(msg(a).getByTestId('chat-reaction')).toHaveCount(0);
  await expect(msg(a).locator('details.chat-react')).toHaveAttribute('open', '');
  await expect(q).toHaveValue('hear');
  await expect(q).toBeFocused();

  // A typing on after the update still searches in that box.
  await q.fill('thumbs');
  await expect(msg(a).getByTestId('chat-react-emoji')).toContainText('👍');

  // A's delete question on her own message stays open through B's
  // reaction to it, its button still focused.
  await a.locator('#chat-body').fill(`mine ${tag}`);
  await a.getByTestId('chat-send').click();
  const mine = (p: Page) => p.getByTestId('chat-message').filter({ hasText: `mine ${tag}` });
  await expect(mine(b)).toHaveCount(1);
  await mine(a).hover();
  await mine(a).getByTestId('chat-delete').click();
  const confirm = mine(a).locator('details.confirm').filter({ has: a.getByTestId('chat-delete') });
  await expect(confirm).toHaveAttribute('open', '');
  await mine(a).getByTestId('chat-delete-confirm').focus();
  await mine(b).hover();
  await mine(b).getByTestId('chat-react-open').click();
  await mine(b).getByTestId('chat-react-choice').first().click();
  await expect(mine(a).getByTestId('chat-reaction')).toContainText('1');
  await expect(confirm).toHaveAttribute('open', '');
  await expect(mine(a).getByTestId('chat-delete-confirm')).toBeFocused();
});

test('who is writing shows to the other person, not to the writer, and goes when the message comes', async ({ browser }) => {
  test.setTimeout(90_000);
  const { a, b, groupPath } = await groupOfTwo(browser, 'typing', 'Typing family');
  const chat = `/chat/group-${groupPath.split('/')[2]}`;
  await a.goto(chat);
  await b.goto(chat);
  const box = a.locator('#chat-body');
  // Until B's stream is open a note finds no one: A goes on typing.
  await expect(async () => {
    await box.press('a');
    await expect(b.getByTestId('chat-typing')).toContainText('is typing…', { timeout: 1000 });
  }).toPass({ timeout: 20_000 });
  await expect(a.getByTestId('chat-typing')).not.toContainText('typing');
  await box.fill('On my way');
  await a.getByTestId('chat-send').click();
  await expect(b.getByTestId('chat-message').filter({ hasText: 'On my way' })).toHaveCount(1);
  await expect(b.getByTestId('chat-typing')).not.toContainText('typing');
});

test('a reply quotes its message, live for the other person, and the quote follows the message\'s deletion', async ({ browser }) => {
  test.setTimeout(90_000);
  const a = await personWithOIDC(browser, uniqueLocal('reply-a'));
  const b = await personWithOIDC(browser, uniqueLocal('reply-b'));
  const room = '/chat/room-general';
  await a.goto(room);
  await b.goto(room);
  const tag = uniqueLocal('q');
  await a.locator('#chat-body').fill(`Dinner at eight? ${tag}`);
  await a.getByTestId('chat-send').click();
  const original = (p: Page) => p.getByTestId('chat-message').filter({ hasText: `Dinner at eight? ${tag}` }).filter({ hasNot: p.getByTestId('chat-quote') });
  await expect(original(b)).toHaveCount(1);

  // B answers it: "Reply" brings the quote above the form, the focus in
  // the box, and the menu closes.
  await original(b).hover();
  await original(b).getByTestId('chat-reply').click();
  const replying = b.getByTestId('chat-replying');
  await expect(replying.getByTestId('chat-quote')).toContainText(`Dinner at eight? ${tag}`);
  await expect(b.locator('#chat-body')).toBeFocused();
  await expect(original(b).locator('details.chat-more')).not.toHaveAttribute('open', '');
  // Taking it back and answering again.
  await b.getByTestId('chat-reply-cancel').click();
  await expect(replying).toHaveCount(0);
  await original(b).hover();
  await original(b).getByTestId('chat-reply').click();
  // The form with the quote comes from the server: a send before it
  // arrives would be a plain message (as it would for a person).
  await expect(replying.getByTestId('chat-quote')).toContainText(`Dinner at eight? ${tag}`);
  await b.locator('#chat-body').fill(`Sounds good ${tag}`);
  await b.getByTestId('chat-send').click();
  await expect(replying).toHaveCount(0);

  // Both see the reply with its quote; A's arrived live.
  const reply = (p: Page) => p.getByTestId('chat-message').filter({ hasText: `Sounds good ${tag}` });
  for (const p of [a, b]) {
    await expect(reply(p).getByTestId('chat-quote')).toContainText(`Dinner at eight? ${tag}`);
  }
  expect(new URL(a.url()).pathname).toBe(room);

  // A deletes hers: B's quote says so, live, and no longer quotes it.
  await original(a).hover();
  await original(a).getByTestId('chat-delete').click();
  await original(a).getByTestId('chat-delete-confirm').click();
  await expect(reply(b).getByTestId('chat-quote')).toHaveText(/Message deleted/);
  await expect(reply(b).getByTestId('chat-quote')).not.toContainText('Dinner');
  // A deleted message's tombstone and a quote of it read well enough.
  await expect(a.getByTestId('chat-tombstone').first()).toBeVisible();
  expect(await axeProblems(a, 'room with a deleted message and a reply to it')).toEqual([]);
});

test('a pinned message shows under the chat\'s name for the other member, live, and leads to the message', async ({ browser }) => {
  test.setTimeout(90_000);
  const { a, b, groupPath } = await groupOfTwo(browser, 'pin', 'Pin family');
  await b.goto(groupPath);
  await b.getByTestId('tab-chat').click();
  await expect(b.getByTestId('chat-page')).toBeVisible();
  const chatPath = new URL(b.url()).pathname;
  await a.goto(chatPath);
  const tag = uniqueLocal('p');
  await a.locator('#chat-body').fill(`Wifi password: harmony ${tag}`);
  await a.getByTestId('chat-send').click();
  const msg = (p: Page) => p.getByTestId('chat-message').filter({ hasText: tag });
  await expect(msg(b)).toHaveCount(1);
  const pins = b.getByTestId('chat-pins');
  await expect(pins).toBeHidden();

  // A pins it: B sees it pinned, under the chat's name and marked.
  await msg(a).hover();
  await msg(a).getByTestId('chat-pin').click();
  await expect(msg(a).getByTestId('chat-pinned')).toBeVisible();
  await expect(pins).toBeVisible();
  await expect(pins.getByTestId('chat-quote')).toContainText(`Wifi password: harmony ${tag}`);
  await expect(msg(b).getByTestId('chat-pinned')).toBeVisible();
  // The quote leads to the message on the page, without leaving it.
  await pins.getByTestId('chat-quote').click();
  await expect(msg(b)).toHaveClass(/chat-message-found/);
  expect(new URL(b.url()).pathname).toBe(chatPath);

  // A unpins it: B's list goes.
  await msg(a).hover();
  await msg(a).getByTestId('chat-pin').click();
  await expect(msg(a).getByTestId('chat-pinned')).toHaveCount(0);
  await expect(pins).toBeHidden();
  await expect(msg(b).getByTestId('chat-pinned')).toHaveCount(0);
});

// Read on one device, read on all (as Zulip): B's chat list, open in one
// tab, loses the unread count of a chat B reads in another tab, without
// a reload.
test('a chat read in another tab is read on the open chat list too', async ({ browser }) => {
  test.setTimeout(90_000);
  const { a, b, groupPath } = await groupOfTwo(browser, 'sync', 'Sync family');
  const chatPath = `/chat/group-${groupPath.split('/')[2]}`;
  // A group's chat joins B's list once B opens it.
  await b.goto(chatPath);
  await expect(b.getByTestId('chat-page')).toBeVisible();
  await b.goto('/chat');
  const item = b.getByTestId('chat-item').filter({ hasText: 'Sync family' });
  await expect(item).toBeVisible();
  const tag = uniqueLocal('s');
  await a.goto(chatPath);
  await a.locator('#chat-body').fill(`Dinner at eight ${tag}`);
  await a.getByTestId('chat-send').click();
  await expect(item.getByTestId('chat-unread')).toBeVisible({ timeout: 15_000 });

  const tab = await b.context().newPage();
  await tab.goto(chatPath);
  await expect(tab.getByTestId('chat-message').filter({ hasText: tag })).toHaveCount(1);
  await expect(item.getByTestId('chat-unread')).toHaveCount(0, { timeout: 15_000 });
  expect(new URL(b.url()).pathname).toBe('/chat');
});
