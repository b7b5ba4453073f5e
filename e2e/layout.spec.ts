// Every page of the demo app, reached by following links as a person
// would, answers without an error, fits its screen (nothing is wider than
// a 390 px phone or a 1280 px window), keeps its header's links and
// buttons apart, shows its current tab, and passes axe (no serious or
// critical violation).
// Pages passed their own tests before and still overflowed in a browser.
// The walks: as admins on a phone in English and light colours (Anna) and
// in Russian and dark colours (Boris, whose words run longer), at 1280 px
// in Russian and light colours (Olga) and in English and dark ones (Tom),
// and as a visitor.
import { test, expect, type BrowserContext } from '@playwright/test';
import AxeBuilder from '@axe-core/playwright';
import { signInDemo } from './helpers';

const demo = process.env.E2E_DEMO_URL!;
const phone = { width: 390, height: 844 };
const desktop = { width: 1280, height: 800 };
// Enough for every kind of page the demo has (133 for an admin on
// 2026-11-29); the walk fails when it stops short, so a growing app
// raises this on purpose.
const maxPages = 200;

// Paths the walk does not open: the developer's mailbox, the API, files
// (feeds, calendars, images, exports), and signing in or out.
const notPages = /^\/(dev|api|static|media|signin|signout)(\/|$)|\.(ics|png|jpe?g|webp|gif|svg|css|js|xml|json|txt|csv)$|\/(feed|export|download|stream|photo|image)(\/|$)/;

// kind is what makes two pages the same kind: their path, ids (ULIDs,
// hashes) and numbers aside, and whether they have a query (a search, a
// filter, a second page). One page of each kind is opened.
function kind(u: URL): string {
  const path = decodeURIComponent(u.pathname).replace(/\b[0-9A-Za-z]{26}\b|\b[0-9a-f]{32}\b|\d+/g, ':id');
  return u.search ? `${path}?` : path;
}

// Where a walk starts: the home page, the pages only a form reaches
// (searches: the walk opens them first, so they stand for their paths'
// pages with a query), and a page that does not exist (its 404 must be
// a page too).
const missing = '/no-such-page';
const starts = ['/', '/prompts?q=plan', '/forum/search?q=plan', missing];

type Problem = string;

// Each walk is cut in two parts by module, so that no one test grows
// with the whole app: a part opens every kind of page reachable from the
// home page (following links through the other part's pages too, so
// that what a part reaches does not depend on the cut), and checks only
// its own. The first part is the modules with the most pages; the second
// is everything else, so a new module is never left out.
const firstPart = /^\/(groups|events|chat|forum)(\/|$)/;
const parts = [
  { name: 'groups, events, chat, forum', mine: (path: string) => firstPart.test(path) },
  { name: 'home, account, inbox, people, prompts, store, blog, admin', mine: (path: string) => !firstPart.test(path) },
] as const;

// walk opens every kind of page reachable from the home page, checks
// those mine says are its part's, and returns how many it checked and
// what is wrong with them.
async function walk(ctx: BrowserContext, who: string, scheme: 'light' | 'dark', mine: (path: string) => boolean): Promise<{ pages: number; problems: Problem[] }> {
  const page = await ctx.newPage();
  await page.emulateMedia({ colorScheme: scheme });
  const seen = new Set<string>(starts.map((p) => kind(new URL(p, demo))));
  const queue = [...starts];
  const problems: Problem[] = [];
  let pages = 0;
  let opened = 0;
  // follow queues the kinds of page the open page links to that the walk
  // has not seen.
  const follow = async () => {
    const hrefs = await page.locator('a[href]').evaluateAll((as) => as.map((a) => (a as HTMLAnchorElement).href));
    for (const href of hrefs) {
      const u = new URL(href);
      if (u.origin !== new URL(demo).origin || notPages.test(u.pathname)) continue;
      const k = kind(u);
      if (seen.has(k)) continue;
      seen.add(k);
      queue.push(u.pathname + u.search);
    }
  };
  while (queue.length > 0 && opened < maxPages) {
    const path = queue.shift()!;
    opened++;
    // The other part's pages are only read for their links: no need to
    // wait for their pictures.
    const own = mine(new URL(path, demo).pathname);
    const res = await page.goto(path, { waitUntil: own ? 'load' : 'domcontentloaded' });
    if (!own) {
      await follow();
      continue;
    }
    if (process.env.LAYOUT_DEBUG) console.log(who, path); // LAYOUT_DEBUG=1 lists the walk
    pages++;
    const status = res?.status() ?? 0;
    if (path === missing ? status !== 404 : status >= 400) {
      problems.push(`${who} ${path}: status ${status}`);
      continue;
    }
    const wide = await page.evaluate(() => {
      const w = document.documentElement.clientWidth;
      const sw = document.documentElement.scrollWidth;
      if (sw <= w) return null;
      // The outermost elements that reach past the edge, to name the culprit.
      const found: Element[] = [];
      const out: string[] = [];
      for (const el of Array.from(document.querySelectorAll('body *'))) {
        const r = el.getBoundingClientRect();
        if (r.width === 0 || r.right <= w + 1 || found.some((f) => f.contains(el))) continue;
        found.push(el);
        const name = el.tagName.toLowerCase() + (el.id ? `#${el.id}` : '') + (el.classList.length ? `.${Array.from(el.classList).join('.')}` : '');
        out.push(`${name} (right ${Math.round(r.right)})`);
        if (out.length >= 4) break;
      }
      return `${sw}px wide: ${out.join(', ')}`;
    });
    if (wide) problems.push(`${who} ${path}: ${wide}`);
    // The headers' links and buttons never run into each other (a long
    // Russian name once pushed the nav over the logo). Measured at the top
    // of the page: a link that opened at an anchor (#first-unread) has
    // scrolled the page's own header under the sticky site header.
    const overlaps = await page.evaluate(() => {
      window.scrollTo({ top: 0, behavior: 'instant' });
      const items = Array.from(document.querySelectorAll('header a, header button, header select, header input'))
        // A closed menu's links keep boxes but are not shown.
        .filter((el) => el.checkVisibility({ contentVisibilityAuto: true, visibilityProperty: true, opacityProperty: true }))
        .map((el) => ({ el, r: el.getBoundingClientRect() }))
        .filter(({ r }) => r.width > 0 && r.height > 0);
      const name = (el: Element) => (el.getAttribute('data-testid') || el.getAttribute('aria-label') || el.textContent || el.tagName).trim().slice(0, 30);
      const out: string[] = [];
      for (let i = 0; i < items.length; i++) {
        for (let j = i + 1; j < items.length; j++) {
          const a = items[i], b = items[j];
          if (a.el.contains(b.el) || b.el.contains(a.el)) continue;
          const w = Math.min(a.r.right, b.r.right) - Math.max(a.r.left, b.r.left);
          const h = Math.min(a.r.bottom, b.r.bottom) - Math.max(a.r.top, b.r.top);
          if (w > 1 && h > 1) out.push(`"${name(a.el)}" overlaps "${name(b.el)}"`);
        }
      }
      return out;
    });
    for (const o of overlaps) problems.push(`${who} ${path}: header: ${o}`);
    // A row of tabs wider than the screen scrolls sideways, and opens with
    // its current tab in view (the account's and a group's last tabs were
    // off the edge of a phone).
    const hiddenTab = await page.evaluate(() => {
      for (const tab of Array.from(document.querySelectorAll('.tabs [aria-current="page"]'))) {
        const row = tab.closest('ul')!.getBoundingClientRect();
        const r = tab.getBoundingClientRect();
        if (r.left < row.left - 1 || r.right > row.right + 1) return (tab.textContent || '').trim();
      }
      return null;
    });
    if (hiddenTab) problems.push(`${who} ${path}: the current tab "${hiddenTab}" is out of view`);
    const axe = await new AxeBuilder({ page }).analyze();
    for (const v of axe.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical')) {
      problems.push(`${who} ${path} (${scheme}): ${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
    }
    await follow();
  }
  if (queue.length > 0) problems.push(`${who}: the walk stopped at ${maxPages} pages with ${queue.length} kinds of page left`);
  await page.close();
  return { pages, problems };
}

// The walks: who, in which colours, on which screen. They run side by
// side (one browser context each).
const walks = [
  ['anna', 'light', phone],
  ['boris', 'dark', phone],
  // The Russian header at full width. Each walk signs in its own person,
  // so that no two walks read each other's codes.
  ['olga', 'light', desktop],
  ['tom', 'dark', desktop], // the desktop layout in dark colours
  ['visitor', 'light', phone], // what someone not signed in sees
] as const;

test.describe.configure({ mode: 'parallel' });

for (const [person, scheme, viewport] of walks) {
  for (const part of parts) {
    test(`every page answers, fits the screen and passes axe: ${person}, ${scheme}, ${viewport.width} px: ${part.name}`, async ({ browser }) => {
      // About 65 kinds of page a part today (133 a walk, on 2026-11-29),
      // each measured and put through axe in the browser: 1 to 3 s a page
      // on CI's two cores, and the other part's pages only opened.
      test.setTimeout(480_000);
      const ctx = person === 'visitor' ? await browser.newContext({ viewport, baseURL: demo }) : await signInDemo(browser, person, viewport);
      const walked = await walk(ctx, `${person} ${viewport.width}px`, scheme, part.mine);
      await ctx.close();
      // The demo has pages in every module: a walk that found few broke.
      expect(walked.pages, 'pages walked').toBeGreaterThan(person === 'visitor' ? 5 : 30);
      expect(walked.problems).toEqual([]);
    });
  }
}
