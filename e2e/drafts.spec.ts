// Drafts (static/js/app.js "Drafts"): what a member types into a new
// topic, a reply or a chat message stays in their browser until it is
// sent: a reload, a preview or a trip to another page brings it back; a
// sent reply or message leaves its box empty; signing out forgets every
// draft.
import { test, expect } from '@playwright/test';
import { addForumSection, personWithOIDC, signInWithCode, uniqueEmail, uniqueLocal } from './helpers';

test('an unsent topic and reply come back after a reload and another page, and go once sent or signed out', async ({ browser }) => {
  test.setTimeout(90_000);
  const stamp = uniqueLocal('dr');
  const slug = stamp.replace(/[^a-z0-9]+/g, '-');
  const sectionName = `Drafts ${stamp}`;

  const admin = await personWithOIDC(browser, 'admin');
  await addForumSection(admin, slug, sectionName);
  await admin.context().close();

  const login = `${stamp}-m`;
  const page = await personWithOIDC(browser, login);
  await page.goto(`/forum/compose?section=${slug}`);
  await page.locator('#topic-title').fill(`A topic ${stamp}`);
  await page.locator('#topic-body').fill('Half a thought about Friday');

  // A reload brings the body back (the title is a line, not a draft).
  await page.reload();
  await expect(page.locator('#topic-body')).toHaveValue('Half a thought about Friday');

  // A preview sends nothing: the draft stays.
  await page.locator('#topic-title').fill(`A topic ${stamp}`);
  await page.getByTestId('preview').click();
  await expect(page.getByTestId('preview-box')).toContainText('Half a thought');
  await page.goto('/forum');
  await page.goto(`/forum/compose?section=${slug}`);
  await expect(page.locator('#topic-body')).toHaveValue('Half a thought about Friday');

  // Sent, it is gone from the form.
  await page.locator('#topic-title').fill(`A topic ${stamp}`);
  await page.getByTestId('compose-submit').click();
  await expect(page.getByTestId('topic-page')).toBeVisible();
  const topic = new URL(page.url()).pathname;
  await page.goto(`/forum/compose?section=${slug}`);
  await expect(page.locator('#topic-body')).toHaveValue('');

  // A reply typed, left for another page, is there on the way back.
  await page.goto(topic);
  await page.locator('#reply-body').fill('A reply I will finish later');
  await page.goto('/forum');
  await page.goto(topic);
  await expect(page.locator('#reply-body')).toHaveValue('A reply I will finish later');
  await page.getByTestId('reply-submit').click();
  await expect(page.getByTestId('post')).toHaveCount(2);
  await page.reload();
  await expect(page.locator('#reply-body')).toHaveValue('');

  // Signing out forgets the drafts: the next person at this browser
  // finds an empty box.
  await page.locator('#reply-body').fill('Something private');
  await page.goto(topic);
  await expect(page.locator('#reply-body')).toHaveValue('Something private');
  await page.getByTestId('signout').click();
  await expect(page.getByTestId('signout')).toHaveCount(0);
  await signInWithCode(page, uniqueEmail('dr-next'));
  await page.goto(topic);
  await expect(page.locator('#reply-body')).toHaveValue('');
});

test('an unsent chat message comes back to its chat, and not once sent', async ({ browser }) => {
  const page = await personWithOIDC(browser, uniqueLocal('dr-chat'));
  const room = '/chat/room-general';
  const text = `a message in progress ${uniqueLocal('t')}`;
  await page.goto(room);
  await page.locator('#chat-body').fill(text);
  await page.goto('/chat');
  await page.goto(room);
  await expect(page.locator('#chat-body')).toHaveValue(text);
  await page.getByTestId('chat-send').click();
  await expect(page.getByTestId('chat-message').filter({ hasText: text })).toHaveCount(1);
  await expect(page.locator('#chat-body')).toHaveValue('');
  await page.reload();
  await expect(page.locator('#chat-body')).toHaveValue('');
});
