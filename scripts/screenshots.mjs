// Screenshots of pages on a demo server, for looking at them and for
// docs/screenshots. Usage (scripts/screenshots starts the server):
//
//   node scripts/screenshots.mjs BASE_URL OUT_DIR SHOT...
//
// A SHOT is name=path, or name=path@person to be signed in as a demo
// person (anna, boris); {group:NAME} in a path is replaced by that demo
// group's id, a path {appt:GROUP/TITLE} is that appointment's page, and
// {event:TITLE} is that demo event's path, {item:TITLE} a store item's,
// {chat:NAME} a chat in the
// person's list, {person:NAME} the page of someone shown in People,
// {topic:TITLE} a forum topic found by its title, {prompt:TITLE} a catalog
// prompt found by its title, {invite:SLUG} a private
// chat room's invite link; a shot ending in !TESTID clicks the first
// element of that data-testid first (!A!B: A, then B) (to open a fold, or to post a form:
// the later takes then show the page as it is after); a shot whose name
// ends in -nojs is taken without JavaScript (a click then follows a plain
// link or form, as such a browser does). Each shot is taken at 1280 px and 390 px wide, light and
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

// Placeholders a path may hold, each found by looking at the app as the
// person would: find(page, match) returns what replaces it.
const firstLink = (loc) => loc.first().locator('a').first().getAttribute('href');
const placeholders = [
  // {chat:NAME}: the chat of that name in the person's chat list.
  { re: /\{chat:([^}]+)\}/, find: async (page, m) => {
    await page.goto(`${base}/chat`);
    return (await firstLink(page.getByTestId('chat-item').filter({ hasText: m[1] }))).split('#')[0];
  } },
  // {invite:SLUG}: a private room's invite link, read by Anna (an admin)
  // on the rooms' admin page.
  { re: /\{invite:([^}]+)\}/, as: 'anna', find: async (page, m) => {
    await page.goto(`${base}/admin/chat-rooms`);
    const link = new URL(await page.locator(`#invite-room-${m[1]}`).inputValue());
    return link.pathname + link.search;
  } },
  // {topic:TITLE}: the forum topic the title search finds first.
  { re: /\{topic:([^}]+)\}/, find: async (page, m) => {
    await page.goto(`${base}/forum/search?q=${encodeURIComponent(m[1])}`);
    return firstLink(page.getByTestId('topic-row'));
  } },
  // {person:NAME}: the page of that person, found in People.
  { re: /\{person:([^}]+)\}/, find: async (page, m) => {
    await page.goto(`${base}/people`);
    return page.getByTestId('person-tile').filter({ hasText: m[1] }).getByTestId('person-tile-link').getAttribute('href');
  } },
  // {prompt:TITLE}: the catalog prompt the title search finds first.
  { re: /\{prompt:([^}]+)\}/, find: async (page, m) => {
    await page.goto(`${base}/prompts?q=${encodeURIComponent(m[1])}`);
    return page.getByTestId('prompt-link').first().getAttribute('href');
  } },
  // {item:TITLE}: that store item's page, as the whole path or its start
  // ({item:Hoodie}/edit).
  { re: /\{item:([^}]+)\}/, find: async (page, m) => {
    await page.goto(`${base}/store`);
    return firstLink(page.getByTestId('store-card').filter({ hasText: m[1] }));
  } },
  // {event:TITLE}: that listed event's page, upcoming or past.
  { re: /\{event:([^}]+)\}/, find: async (page, m) => {
    for (const list of ['/events', '/events?when=past']) {
      await page.goto(`${base}${list}`);
      const card = page.getByTestId('event-card').filter({ hasText: m[1] });
      if (await card.count()) return firstLink(card);
    }
    throw new Error(`no event ${m[1]}`);
  } },
  // {appt:GROUP/TITLE}: that appointment's page (its next one).
  { re: /\{appt:([^/}]+)\/([^}]+)\}/, find: async (page, m) => {
    await page.goto(`${base}/groups`);
    await page.goto(`${base}${await firstLink(page.getByTestId('group-card').filter({ hasText: m[1] }))}`);
    return firstLink(page.getByTestId('appointment-row').filter({ hasText: m[2] }));
  } },
  // {group:NAME}: that group's id (not a path: write /groups/{group:NAME}).
  { re: /\{group:([^}]+)\}/, find: async (page, m) => {
    await page.goto(`${base}/groups`);
    return (await firstLink(page.getByTestId('group-card').filter({ hasText: m[1] }))).split('/')[2];
  } },
];

// found keeps what a placeholder resolved to, per person looking.
const found = {};
async function resolve(path, person) {
  for (const p of placeholders) {
    const m = path.match(p.re);
    if (!m) continue;
    const as = p.as || person;
    const key = `${m[0]}@${as || ''}`;
    if (found[key] === undefined) {
      const ctx = await browser.newContext({ storageState: as ? await signIn(as) : undefined });
      found[key] = await p.find(await ctx.newPage(), m);
      await ctx.close();
    }
    return path.replace(m[0], found[key]);
  }
  return path;
}

for (const shot of shots) {
  const [name, spec] = shot.split(/=(.*)/s);
  const [rest, ...clicks] = spec.split('!');
  const [rawPath, person] = rest.split('@');
  const state = person ? await signIn(person) : undefined;
  const path = await resolve(rawPath, person);
  for (const [form, width, height] of [['desktop', 1280, 900], ['mobile', 390, 844]]) {
    for (const scheme of ['light', 'dark']) {
      const ctx = await browser.newContext({ storageState: state, viewport: { width, height }, colorScheme: scheme, isMobile: width < 600, javaScriptEnabled: !name.endsWith('-nojs') });
      const page = await ctx.newPage();
      await page.goto(`${base}${path}`);
      for (const click of clicks) {
        // A click that changed something (a form posted) finds nothing to
        // click on the next takes: they show the page as it now is. Nor
        // is a control hidden at this width clicked (the menu button on
        // a wide screen).
        const target = page.getByTestId(click).first();
        if (await target.count() && await target.isVisible()) {
          // A chat message's actions float, hidden, over its top edge
          // until the pointer is on the message: what a pointer cannot
          // reach is clicked from the script.
          await target.click({ timeout: 3000 }).catch(() => target.dispatchEvent('click'));
          await page.waitForLoadState();
          await page.waitForTimeout(300); // what htmx fetched, swapped in
        } else console.log(`${name} ${form} ${scheme}: no ${click} to click, shot as it is`);
      }
      const wide = await page.evaluate(() => document.documentElement.scrollWidth);
      if (wide > width) console.log(`OVERFLOW ${name} ${form}: ${wide}px wide`);
      await page.screenshot({ path: `${out}/${name}-${form}-${scheme}.png`, fullPage: true });
      await ctx.close();
    }
  }
  console.log(`shot ${name} (${path})`);
}
await browser.close();
