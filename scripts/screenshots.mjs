// Screenshots of pages on a demo server, for looking at them and for
// docs/screenshots. Usage (scripts/screenshots starts the server):
//
//   node scripts/screenshots.mjs BASE_URL OUT_DIR SHOT...
//
// A SHOT is name=path, or name=path@person to be signed in as a demo
// person (anna, boris); {group:NAME} in a path is replaced by that demo
// group's id, a path {appt:GROUP/TITLE} is that appointment's page, and
// {event:TITLE} is that demo event's path, {chat:NAME} a chat in the
// person's list, {person:NAME} the page of someone who wrote in #general,
// {topic:TITLE} a forum topic found by its title, {invite:SLUG} a private
// chat room's invite link. Each shot is taken at 1280 px and 390 px wide, light and
// dark: OUT_DIR/name-{desktop,mobile}-{light,dark}.png.
import { chromium } from '@playwright/test';
import { mkdirSync } from 'node:fs';

const [base, out, ...shots] = process.argv.slice(2);
mkdirSync(out, { recursive: true });
const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--no-sandbox', '--disable-gpu'] });
const states = {};

async function signIn(person) {
  if (states[person]) return states[person];
  const email = `${person}@demo.example`;
  const ctx = await browser.newContext();
  const page = await ctx.newPage();
  await page.goto(`${base}/signin`);
  await page.getByTestId('signin-email-form').locator('input[type="email"]').fill(email);
  await page.getByTestId('signin-email-form').locator('button[type="submit"]').click();
  await page.waitForURL(/signin\/code/);
  const box = await ctx.newPage();
  await box.goto(`${base}/dev/mailbox`);
  const code = await box.getByTestId('mailbox-item').filter({ hasText: email }).first().getByTestId('mailbox-code').innerText();
  await page.locator('#signin-code').fill(code.trim());
  await page.getByTestId('signin-verify').click();
  await page.waitForURL((u) => !u.pathname.startsWith('/signin'));
  states[person] = await ctx.storageState();
  await ctx.close();
  return states[person];
}

const groupIDs = {};
async function resolve(path, state) {
  const ch = path.match(/\{chat:([^}]+)\}/);
  if (ch) {
    // {chat:NAME} is the chat of that name in the person's chat list.
    const ctx = await browser.newContext({ storageState: state });
    const page = await ctx.newPage();
    await page.goto(`${base}/chat`);
    const href = await page.getByTestId('chat-item').filter({ hasText: ch[1] }).first().locator('a').first().getAttribute('href');
    await ctx.close();
    return path.replace(ch[0], href.split('#')[0]);
  }
  const invite = path.match(/\{invite:([^}]+)\}/);
  if (invite) {
    // {invite:SLUG} is a private room's invite link, read by Anna (an
    // admin) on the rooms' admin page.
    const ctx = await browser.newContext({ storageState: await signIn('anna') });
    const page = await ctx.newPage();
    await page.goto(`${base}/admin/chat-rooms`);
    const link = await page.locator(`#invite-room-${invite[1]}`).inputValue();
    await ctx.close();
    return path.replace(invite[0], new URL(link).pathname + new URL(link).search);
  }
  const topic = path.match(/\{topic:([^}]+)\}/);
  if (topic) {
    // {topic:TITLE} is the forum topic the title search finds first.
    const ctx = await browser.newContext({ storageState: state });
    const page = await ctx.newPage();
    await page.goto(`${base}/forum/search?q=${encodeURIComponent(topic[1])}`);
    const href = await page.getByTestId('topic-row').first().locator('a').first().getAttribute('href');
    await ctx.close();
    return path.replace(topic[0], href);
  }
  const who = path.match(/\{person:([^}]+)\}/);
  if (who) {
    // {person:NAME} is the page of the sender of that name in #general.
    const ctx = await browser.newContext({ storageState: state });
    const page = await ctx.newPage();
    await page.goto(`${base}/chat/room-general`);
    const href = await page.locator('a.chat-sender').filter({ hasText: who[1] }).first().getAttribute('href');
    await ctx.close();
    return path.replace(who[0], href);
  }
  const ev = path.match(/\{event:([^}]+)\}/);
  if (ev) {
    // {event:TITLE} is that listed event's page.
    const ctx = await browser.newContext({ storageState: state });
    const page = await ctx.newPage();
    await page.goto(`${base}/events`);
    const href = await page.getByTestId('event-card').filter({ hasText: ev[1] }).first().locator('a').first().getAttribute('href');
    await ctx.close();
    return path.replace(ev[0], href);
  }
  const a = path.match(/\{appt:([^/}]+)\/([^}]+)\}/);
  if (a) {
    // {appt:GROUP/TITLE} is that appointment's page (its next one).
    const ctx = await browser.newContext({ storageState: state });
    const page = await ctx.newPage();
    await page.goto(`${base}/groups`);
    const group = await page.getByTestId('group-card').filter({ hasText: a[1] }).first().locator('a').first().getAttribute('href');
    await page.goto(`${base}${group}`);
    const href = await page.getByTestId('appointment-row').filter({ hasText: a[2] }).first().locator('a').first().getAttribute('href');
    await ctx.close();
    return path.replace(a[0], href);
  }
  const m = path.match(/\{group:([^}]+)\}/);
  if (!m) return path;
  if (!groupIDs[m[1]]) {
    const ctx = await browser.newContext({ storageState: state });
    const page = await ctx.newPage();
    await page.goto(`${base}/groups`);
    const href = await page.getByTestId('group-card').filter({ hasText: m[1] }).first().locator('a').first().getAttribute('href');
    groupIDs[m[1]] = href.split('/')[2];
    await ctx.close();
  }
  return path.replace(m[0], groupIDs[m[1]]);
}

for (const shot of shots) {
  const [name, rest] = shot.split(/=(.*)/s);
  const [rawPath, person] = rest.split('@');
  const state = person ? await signIn(person) : undefined;
  const path = await resolve(rawPath, state);
  for (const [form, width, height] of [['desktop', 1280, 900], ['mobile', 390, 844]]) {
    for (const scheme of ['light', 'dark']) {
      const ctx = await browser.newContext({ storageState: state, viewport: { width, height }, colorScheme: scheme, isMobile: width < 600 });
      const page = await ctx.newPage();
      await page.goto(`${base}${path}`);
      const wide = await page.evaluate(() => document.documentElement.scrollWidth);
      if (wide > width) console.log(`OVERFLOW ${name} ${form}: ${wide}px wide`);
      await page.screenshot({ path: `${out}/${name}-${form}-${scheme}.png`, fullPage: true });
      await ctx.close();
    }
  }
  console.log(`shot ${name} (${path})`);
}
await browser.close();
