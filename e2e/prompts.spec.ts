// The prompt catalog end to end (issue 5, documents 001 and 002): creating a
// public prompt with two tags and {{variables}} and a private one (refused
// with 404 to anyone but its author), finding the public one by the tag AND
// filter and by a title prefix typed into the search box (English and
// Russian), voting from a second user with the counts swapped in place, the
// catalog paging as it scrolls (playwright.config.ts seeds synthetic
// prompts with "web seed prompts" before the server starts), a stale edit
// from a second tab refused with 409, Copy and Copy filled, the search and
// variables forms without JavaScript, and axe on every page of the module.
//
// Everyone signs in through the OIDC peer (login L is the verified
// L@example.test), which leaves the per-IP email-code allowance to the
// identity specs. The catalog is shared with the other tests, so titles
// carry random words and the checks look for our prompts rather than exact
// lists. A user may create one prompt every 30 s, so each prompt here has
// its own author unless the test is about that limit.
import { test, expect, type Browser, type BrowserContext, type Page } from '@playwright/test';
import AxeBuilder from '@axe-core/playwright';
import { axeProblems, signInWithOIDC, uniqueLocal } from './helpers';

// The tests are independent (each has its own users and prompts), so they
// may share the two workers.
test.describe.configure({ mode: 'parallel' });

type User = { login: string; ctx: BrowserContext; page: Page };

// signIn opens a fresh browser context signed in as the OIDC login.
async function signIn(browser: Browser, login: string, options: Parameters<Browser['newContext']>[0] = {}): Promise<User> {
  const ctx = await browser.newContext(options);
  const page = await ctx.newPage();
  await signInWithOIDC(page, login);
  return { login, ctx, page };
}

// word is a random word of n letters from alphabet: a title token that no
// other prompt has, so a search for its prefix is about this test alone.
function word(n: number, alphabet = 'bcdfghjklmnpqrstvwxz'): string {
  const letters = [...alphabet];
  let out = '';
  for (let i = 0; i < n; i++) out += letters[Math.floor(Math.random() * letters.length)];
  return out;
}
const cyrillic = 'бвгджзклмнпрстфхцчшщ';
const capitalize = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);

type NewPrompt = { title: string; text: string; tags?: string[]; visibility?: 'public' | 'private' };

// fillPromptForm fills /prompts/new (or an edit form) without saving.
async function fillPromptForm(page: Page, p: NewPrompt): Promise<void> {
  const form = page.getByTestId('prompt-form');
  await form.getByTestId('title-input').fill(p.title);
  await form.getByTestId('text-input').fill(p.text);
  for (const tag of p.tags ?? []) {
    await form.locator(`input[name="tag"][value="${tag}"]`).check();
  }
  await form.locator(`input[name="visibility"][value="${p.visibility ?? 'public'}"]`).check();
}

// createPrompt creates a prompt through the form and returns its id, read
// from the prompt page it lands on.
async function createPrompt(page: Page, p: NewPrompt): Promise<string> {
  await page.goto('/prompts/new');
  await fillPromptForm(page, p);
  await page.getByTestId('prompt-submit').click();
  await expect(page.getByTestId('prompt-title')).toHaveText(p.title);
  const id = await page.getByTestId('prompt-page').getAttribute('data-prompt');
  expect(id).toBeTruthy();
  expect(new URL(page.url()).pathname).toBe(`/prompts/${id}`);
  return id!;
}

// card is a prompt's card in the list on the page.
function card(page: Page, id: string) {
  return page.locator(`[data-testid="prompt-card"][data-prompt="${id}"]`);
}

// variable is the input for a {{name}} on a prompt's page, by its label.
function variable(page: Page, name: string) {
  return page.getByTestId('prompt-variables').getByRole('textbox', { name, exact: true });
}

function chip(page: Page, tag: string) {
  return page.locator(`[data-testid="tag-chip"][data-tag="${tag}"]`);
}

// markPage tags the window, so a later check can tell that htmx swapped a
// part of the page rather than the browser loading a new one.
async function markPage(page: Page): Promise<void> {
  await page.evaluate(() => ((window as unknown as { __sameDocument: boolean }).__sameDocument = true));
}
async function expectSameDocument(page: Page): Promise<void> {
  expect(await page.evaluate(() => (window as unknown as { __sameDocument?: boolean }).__sameDocument)).toBe(true);
}

// typeSearch types q into the search box as a person does and waits for
// the htmx swap: the address bar carries q and the results say so.
async function typeSearch(page: Page, q: string): Promise<void> {
  const box = page.getByTestId('search-input');
  await box.fill('');
  await box.pressSequentially(q, { delay: 40 });
  await expect.poll(() => new URL(page.url()).searchParams.get('q')).toBe(q);
  await expect(page.getByTestId('search-note')).toContainText(q);
}

test('prompts: create a public prompt with two tags and variables, and a private one that is 404 to others', async ({ browser }) => {
  test.setTimeout(90_000);
  const stamp = uniqueLocal('pc');
  const a = await signIn(browser, `${stamp}-a`);
  const pub = {
    title: `Release notes ${capitalize(word(8))}`,
    text: 'Write release notes for {{product}} version {{version}} in a {{tone}} tone.',
    tags: ['writing', 'coding'],
  };
  const pubID = await createPrompt(a.page, pub);
  await expect(a.page.getByTestId('flash')).toContainText('Prompt created.');
  await expect(a.page.getByTestId('prompt-text')).toHaveText(pub.text);
  await expect(a.page.getByTestId('prompt-author')).toContainText(a.login);
  await expect(a.page.getByTestId('prompt-tags').locator('[data-tag]')).toHaveText(['Writing', 'Coding']);
  await expect(a.page.getByTestId('private-badge')).toHaveCount(0);
  // The page found the variables, each once, in order.
  await expect(a.page.getByTestId('variable-input')).toHaveCount(3);
  await expect(a.page.getByTestId('prompt-variables').locator('label')).toHaveText(['product', 'version', 'tone']);

  // A second prompt right away is refused by the rate limit (429), and the
  // form keeps what was typed.
  await a.page.goto('/prompts/new');
  const second = { title: `Too soon ${word(8)}`, text: 'Another one.', tags: ['fun'] };
  await fillPromptForm(a.page, second);
  const refused = a.page.waitForResponse((r) => r.request().method() === 'POST' && new URL(r.url()).pathname === '/prompts');
  await a.page.getByTestId('prompt-submit').click();
  expect((await refused).status()).toBe(429);
  await expect(a.page.getByTestId('form-problem')).toContainText('one prompt every 30 seconds');
  await expect(a.page.getByTestId('title-input')).toHaveValue(second.title);
  await expect(a.page.locator('input[name="tag"][value="fun"]')).toBeChecked();

  // C writes a private prompt; C can open it and sees it in "My prompts".
  const c = await signIn(browser, `${stamp}-c`);
  const secret = { title: `Diary entry ${capitalize(word(8))}`, text: 'My private prompt.', tags: ['writing'], visibility: 'private' as const };
  const secretID = await createPrompt(c.page, secret);
  await expect(c.page.getByTestId('private-badge')).toBeVisible();
  await c.page.goto(`/prompts/${secretID}`);
  await expect(c.page.getByTestId('prompt-title')).toHaveText(secret.title);
  await c.page.goto('/prompts/mine');
  await expect(card(c.page, secretID).getByTestId('private-badge')).toBeVisible();

  // B, signed in, gets 404 on C's private prompt, exactly as on a prompt
  // that does not exist, and the page does not give the title away.
  const b = await signIn(browser, `${stamp}-b`);
  const res = await b.page.goto(`/prompts/${secretID}`);
  expect(res?.status()).toBe(404);
  await expect(b.page.getByTestId('error-page')).toHaveAttribute('data-status', '404');
  expect(await b.page.content()).not.toContain(secret.title);
  expect((await b.ctx.request.get(`/prompts/${secretID}/edit`, { maxRedirects: 0 })).status()).toBe(404);
  const none = await b.ctx.request.get('/prompts/01NOSUCHPROMPT0000000000000');
  expect(none.status()).toBe(404);
  // A visitor too; and the public one opens for everyone.
  const anon = await browser.newContext();
  expect((await anon.request.get(`/prompts/${secretID}`)).status()).toBe(404);
  expect((await anon.request.get(`/prompts/${pubID}`)).status()).toBe(200);
  await anon.close();
  // The private prompt is not in the catalog's search either.
  await b.page.goto(`/prompts?q=${encodeURIComponent(secret.title)}`);
  await expect(card(b.page, secretID)).toHaveCount(0);
  await b.page.goto(`/prompts/${pubID}`);
  await expect(b.page.getByTestId('prompt-title')).toHaveText(pub.title);

  for (const u of [a, b, c]) await u.ctx.close();
});

test('prompts: the tag AND filter and a title prefix typed into the search find the new prompts, also in Russian', async ({ browser }) => {
  test.setTimeout(90_000);
  const stamp = uniqueLocal('pf');
  const latin = word(9);
  const a = await signIn(browser, `${stamp}-a`);
  const enTitle = `Interview questions ${capitalize(latin)} edition`;
  const enID = await createPrompt(a.page, { title: enTitle, text: 'Ask me about {{role}}.', tags: ['translation', 'research'] });
  // One of the two tags only: the AND filter must leave it out.
  const o = await signIn(browser, `${stamp}-o`);
  const oneID = await createPrompt(o.page, { title: `Only one tag ${capitalize(latin)}`, text: 'One tag.', tags: ['translation'] });
  // A Russian title, by another author.
  const ru = word(9, cyrillic);
  const r = await signIn(browser, `${stamp}-r`);
  const ruTitle = `Шпаргалка ${capitalize(ru)} для команды`;
  const ruID = await createPrompt(r.page, { title: ruTitle, text: 'Составь шпаргалку по теме {{тема}}.', tags: ['education'] });

  // The tag filter, as a visitor: each chip click narrows the listing, and
  // the URL carries both tags.
  const ctx = await browser.newContext();
  const page = await ctx.newPage();
  await page.goto('/prompts');
  await expect(card(page, enID)).toBeVisible();
  await chip(page, 'translation').click();
  await expect.poll(() => new URL(page.url()).searchParams.getAll('tag')).toEqual(['translation']);
  await expect(chip(page, 'translation')).toHaveAttribute('data-selected', 'true');
  await expect(card(page, enID)).toBeVisible();
  await expect(card(page, oneID)).toBeVisible();
  await chip(page, 'research').click();
  await expect.poll(() => new URL(page.url()).searchParams.getAll('tag').sort()).toEqual(['research', 'translation']);
  await expect(chip(page, 'research')).toHaveAttribute('data-selected', 'true');
  await expect(chip(page, 'translation')).toHaveAttribute('data-selected', 'true');
  await expect(card(page, enID)).toBeVisible();
  await expect(card(page, oneID)).toHaveCount(0);
  // Every prompt listed has both tags.
  const cards = page.getByTestId('prompt-card');
  const n = await cards.count();
  expect(n).toBeGreaterThan(0);
  for (let i = 0; i < n; i++) {
    const tags = await cards.nth(i).locator('[data-testid="prompt-tags"] [data-tag]').evaluateAll((els) => els.map((e) => e.getAttribute('data-tag')));
    expect(tags).toEqual(expect.arrayContaining(['translation', 'research']));
  }
  // The shared URL shows the same listing.
  const shared = await browser.newContext();
  const sharedPage = await shared.newPage();
  await sharedPage.goto(page.url());
  await expect(card(sharedPage, enID)).toBeVisible();
  await expect(card(sharedPage, oneID)).toHaveCount(0);
  await shared.close();

  // The search as you type, within the chosen tags: htmx swaps the results
  // in place and puts the query in the address bar.
  await markPage(page);
  await typeSearch(page, latin.slice(0, 4));
  expect(new URL(page.url()).searchParams.getAll('tag').sort()).toEqual(['research', 'translation']);
  await expect(card(page, enID)).toBeVisible();
  await expect(card(page, oneID)).toHaveCount(0);
  await expectSameDocument(page);

  // Without the tags, the same prefix finds both prompts with the word.
  await page.goto('/prompts');
  await markPage(page);
  await typeSearch(page, latin.slice(0, 5).toUpperCase());
  await expect(card(page, enID)).toBeVisible();
  await expect(card(page, oneID)).toBeVisible();
  await expect(page.getByTestId('prompt-card')).toHaveCount(2);
  // Several words are ANDed.
  await typeSearch(page, `${latin.slice(0, 4)} interv`);
  await expect(card(page, enID)).toBeVisible();
  await expect(card(page, oneID)).toHaveCount(0);

  // A Russian prefix, typed in lower case, finds the Russian title.
  await typeSearch(page, ru.slice(0, 4));
  await expect(card(page, ruID)).toBeVisible();
  await expect(card(page, ruID).getByTestId('prompt-link')).toHaveText(ruTitle);
  await expect(page.getByTestId('prompt-card')).toHaveCount(1);
  // And a whole Russian word in upper case.
  await typeSearch(page, `${ru.toUpperCase()} ШПАРГ`);
  await expect(card(page, ruID)).toBeVisible();
  await expectSameDocument(page);
  // The search's URL is shareable.
  await sharedPageCheck(browser, page.url(), ruID);

  await ctx.close();
  for (const u of [a, o, r]) await u.ctx.close();
});

async function sharedPageCheck(browser: Browser, url: string, id: string): Promise<void> {
  const ctx = await browser.newContext();
  const page = await ctx.newPage();
  await page.goto(url);
  await expect(card(page, id)).toBeVisible();
  await ctx.close();
}

test('prompts: a second user votes, the counts change in place and persist; the author cannot vote', async ({ browser }) => {
  test.setTimeout(90_000);
  const stamp = uniqueLocal('pv');
  const a = await signIn(browser, `${stamp}-a`);
  const id = await createPrompt(a.page, { title: `Vote on me ${capitalize(word(8))}`, text: 'Rate this.', tags: ['fun'] });

  const b = await signIn(browser, `${stamp}-b`);
  const page = b.page;
  await page.goto(`/prompts/${id}`);
  const widget = page.getByTestId('vote-widget');
  const like = page.getByTestId('vote-like');
  const dislike = page.getByTestId('vote-dislike');
  await expect(widget).toHaveAttribute('data-mine', 'none');
  await expect(like).toHaveAttribute('aria-pressed', 'false');
  await expect(like.getByTestId('likes-count')).toHaveText('0');
  await expect(dislike.getByTestId('dislikes-count')).toHaveText('0');

  // none → like, swapped in place by htmx.
  await markPage(page);
  const voted = page.waitForResponse((r) => r.request().method() === 'POST' && r.url().endsWith(`/prompts/${id}/vote`));
  await like.click();
  const res = await voted;
  expect(res.status()).toBe(200);
  expect(res.request().headers()['hx-request']).toBe('true');
  await expect(like).toHaveAttribute('aria-pressed', 'true');
  await expect(like.getByTestId('likes-count')).toHaveText('1');
  await expect(dislike).toHaveAttribute('aria-pressed', 'false');
  await expect(widget).toHaveAttribute('data-mine', 'like');
  await expectSameDocument(page);

  // It is stored: a reload shows the same.
  await page.reload();
  await expect(page.getByTestId('vote-widget')).toHaveAttribute('data-mine', 'like');
  await expect(like).toHaveAttribute('aria-pressed', 'true');
  await expect(like.getByTestId('likes-count')).toHaveText('1');

  // like → dislike, dislike → none, none → like.
  await dislike.click();
  await expect(widget).toHaveAttribute('data-mine', 'dislike');
  await expect(like.getByTestId('likes-count')).toHaveText('0');
  await expect(dislike.getByTestId('dislikes-count')).toHaveText('1');
  await expect(dislike).toHaveAttribute('aria-pressed', 'true');
  await dislike.click();
  await expect(widget).toHaveAttribute('data-mine', 'none');
  await expect(dislike.getByTestId('dislikes-count')).toHaveText('0');
  await expect(dislike).toHaveAttribute('aria-pressed', 'false');
  await like.click();
  await expect(widget).toHaveAttribute('data-mine', 'like');
  await expect(like.getByTestId('likes-count')).toHaveText('1');
  await page.reload();
  await expect(like.getByTestId('likes-count')).toHaveText('1');
  await expect(dislike.getByTestId('dislikes-count')).toHaveText('0');

  // The catalog's card has the new count too.
  await page.goto('/prompts');
  await expect(card(page, id).getByTestId('card-likes')).toHaveText('1 like');
  await expect(card(page, id).getByTestId('card-dislikes')).toHaveText('0 dislikes');

  // The author sees the counts, no buttons, and why.
  await a.page.goto(`/prompts/${id}`);
  await expect(a.page.getByTestId('likes-count')).toHaveText('1');
  await expect(a.page.getByTestId('dislikes-count')).toHaveText('0');
  await expect(a.page.getByTestId('vote-like')).toHaveCount(0);
  await expect(a.page.getByTestId('vote-dislike')).toHaveCount(0);
  await expect(a.page.getByTestId('own-prompt-note')).toBeVisible();
  // And the server refuses a vote posted by hand.
  expect((await a.page.request.post(`/prompts/${id}/vote`, { form: { value: 'like' }, maxRedirects: 0 })).status()).toBeGreaterThanOrEqual(400);

  // A visitor is invited to sign in instead.
  const anon = await browser.newContext();
  const ap = await anon.newPage();
  await ap.goto(`/prompts/${id}`);
  await expect(ap.getByTestId('signin-to-vote')).toBeVisible();
  await expect(ap.getByTestId('vote-like')).toHaveCount(0);
  await anon.close();

  await a.ctx.close();
  await b.ctx.close();
});

test('prompts: scrolling the catalog loads page after page, newest first, with no repeats', async ({ page }) => {
  test.setTimeout(60_000);
  await page.goto('/prompts');
  const cards = page.getByTestId('prompt-card');
  await expect(cards).toHaveCount(30);
  let count = 30;
  for (let i = 0; i < 20; i++) {
    const sentinel = page.getByTestId('load-more');
    if ((await sentinel.count()) === 0) break;
    // Scroll to the bottom; the sentinel's "intersect once" loads the next page.
    await page.evaluate(() => window.scrollTo(0, document.body.scrollHeight));
    await expect.poll(() => cards.count(), { message: 'the next page to load on scrolling' }).toBeGreaterThan(count);
    count = await cards.count();
  }
  // playwright.config.ts seeds more than 60 public prompts.
  expect(count).toBeGreaterThan(60);
  await expect(page.getByTestId('load-more')).toHaveCount(0);
  expect(new URL(page.url()).pathname + new URL(page.url()).search).toBe('/prompts');
  const ids = await cards.evaluateAll((els) => els.map((e) => e.getAttribute('data-prompt')));
  expect(new Set(ids).size).toBe(ids.length);
  // Newest first across pages (and across the seed's month buckets).
  const times = await cards.locator('time').evaluateAll((els) => els.map((e) => Date.parse(e.getAttribute('datetime') || '')));
  expect(times.length).toBe(ids.length);
  for (let i = 1; i < times.length; i++) expect(times[i]).toBeLessThanOrEqual(times[i - 1]);
});

test('prompts: an edit saved from a stale second tab gets the conflict message and the first save stays', async ({ browser }) => {
  test.setTimeout(60_000);
  const stamp = uniqueLocal('pe');
  const a = await signIn(browser, `${stamp}-a`);
  const id = await createPrompt(a.page, { title: `Draft ${capitalize(word(8))}`, text: 'First text.', tags: ['business'] });
  const tab1 = a.page;
  const tab2 = await a.ctx.newPage();
  await tab1.goto(`/prompts/${id}/edit`);
  await tab2.goto(`/prompts/${id}/edit`);

  const first = `First save ${word(8)}`;
  await tab1.getByTestId('title-input').fill(first);
  await tab1.getByTestId('prompt-submit').click();
  await expect(tab1.getByTestId('prompt-title')).toHaveText(first);
  await expect(tab1.getByTestId('flash')).toContainText('Prompt saved.');

  const second = `Second save ${word(8)}`;
  await tab2.getByTestId('title-input').fill(second);
  await tab2.getByTestId('text-input').fill('Second text.');
  const saved = tab2.waitForResponse((r) => r.request().method() === 'POST' && r.url().endsWith(`/prompts/${id}`));
  await tab2.getByTestId('prompt-submit').click();
  expect((await saved).status()).toBe(409);
  await expect(tab2.getByTestId('form-problem')).toContainText('changed elsewhere');
  // What was typed is still there to copy.
  await expect(tab2.getByTestId('title-input')).toHaveValue(second);
  await expect(tab2.getByTestId('text-input')).toHaveValue('Second text.');
  // The link opens the latest version: the first save's.
  await tab2.getByTestId('reload-latest').click();
  await expect(tab2.getByTestId('title-input')).toHaveValue(first);
  await expect(tab2.getByTestId('text-input')).toHaveValue('First text.');

  await tab1.goto(`/prompts/${id}`);
  await expect(tab1.getByTestId('prompt-title')).toHaveText(first);
  await expect(tab1.getByTestId('prompt-text')).toHaveText('First text.');
  await expect(tab1.getByTestId('prompt-updated')).toBeVisible();
  await a.ctx.close();
});

test('prompts: Copy and Copy filled put the text on the clipboard and announce it', async ({ browser }) => {
  test.setTimeout(60_000);
  const stamp = uniqueLocal('pk');
  const text = 'Explain {{topic}} to {{ audience }} in {{n}} sentences.';
  const a = await signIn(browser, `${stamp}-a`);
  const id = await createPrompt(a.page, { title: `Explainer ${capitalize(word(8))}`, text, tags: ['education'] });
  await a.ctx.close();

  const b = await signIn(browser, `${stamp}-b`, { permissions: ['clipboard-read', 'clipboard-write'] });
  const page = b.page;
  await page.goto(`/prompts/${id}`);
  const status = page.getByTestId('copy-status');
  const clipboard = () => page.evaluate(() => navigator.clipboard.readText());

  // Until something is copied the message takes no room on the page.
  expect((await status.boundingBox())?.height ?? 0).toBeLessThanOrEqual(1);
  await page.getByTestId('copy-prompt').click();
  await expect(status).toHaveText('Copied to the clipboard.');
  await expect(status).toBeVisible();
  expect((await status.boundingBox())?.height ?? 0).toBeGreaterThan(10);
  await expect(status).toHaveAttribute('aria-live', 'polite');
  expect(await clipboard()).toBe(text);

  // Filling the variables updates the filled text as one types.
  await variable(page, 'topic').fill('black holes');
  await variable(page, 'audience').fill('a ten-year-old');
  const filled = 'Explain black holes to a ten-year-old in {{n}} sentences.';
  await expect(page.getByTestId('prompt-filled')).toHaveText(filled);
  // The run links carry the filled prompt as it is typed.
  await expect(page.getByTestId('prompt-run-link').filter({ hasText: 'Claude' })).toHaveAttribute('href', `https://claude.ai/new?q=${encodeURIComponent(filled)}`);
  await page.getByTestId('copy-filled').click();
  await expect.poll(clipboard).toBe(filled);
  await expect(status).toHaveText('Copied to the clipboard.');
  await variable(page, 'n').fill('3');
  await page.getByTestId('copy-filled').click();
  await expect.poll(clipboard).toBe('Explain black holes to a ten-year-old in 3 sentences.');
  await b.ctx.close();
});

test('prompts: without JavaScript the search form, the variables form and "load more" work', async ({ browser }) => {
  test.setTimeout(60_000);
  const stamp = uniqueLocal('pn');
  const latin = word(9);
  const a = await signIn(browser, `${stamp}-a`);
  const title = `Cover letter ${capitalize(latin)}`;
  const id = await createPrompt(a.page, { title, text: 'Write a cover letter for {{job}} at {{company}}.', tags: ['business', 'writing'] });
  await a.ctx.close();

  const ctx = await browser.newContext({ javaScriptEnabled: false });
  const page = await ctx.newPage();

  // The search form submits as a plain GET.
  await page.goto('/prompts');
  await page.getByTestId('search-input').fill(latin.slice(0, 5));
  await page.getByTestId('search-submit').click();
  await expect.poll(() => new URL(page.url()).searchParams.get('q')).toBe(latin.slice(0, 5));
  await expect(page.getByTestId('search-note')).toBeVisible();
  await expect(card(page, id)).toBeVisible();
  await expect(page.getByTestId('prompt-card')).toHaveCount(1);

  // The variables form: the server fills the text in.
  await card(page, id).getByTestId('prompt-link').click();
  await expect(page.getByTestId('prompt-title')).toHaveText(title);
  // The copy buttons need JavaScript, so they stay hidden.
  await expect(page.getByTestId('copy-prompt')).toBeHidden();
  await expect(page.getByTestId('copy-filled')).toBeHidden();
  await variable(page, 'job').fill('a barista job');
  await variable(page, 'company').fill('Café Ёлка');
  await page.getByTestId('variables-submit').click();
  await expect.poll(() => new URL(page.url()).searchParams.get('v.company')).toBe('Café Ёлка');
  await expect(page.getByTestId('prompt-filled')).toHaveText('Write a cover letter for a barista job at Café Ёлка.');
  await expect(variable(page, 'job')).toHaveValue('a barista job');

  // "Load more" is a real link to the next page.
  await page.goto('/prompts');
  const firstIDs = await page.getByTestId('prompt-card').evaluateAll((els) => els.map((e) => e.getAttribute('data-prompt')));
  expect(firstIDs.length).toBe(30);
  await page.getByTestId('load-more').click();
  await expect.poll(() => new URL(page.url()).searchParams.get('cursor')).toBeTruthy();
  await expect(page.getByTestId('first-page')).toBeVisible();
  const nextIDs = await page.getByTestId('prompt-card').evaluateAll((els) => els.map((e) => e.getAttribute('data-prompt')));
  expect(nextIDs.length).toBeGreaterThan(0);
  expect(nextIDs.filter((x) => firstIDs.includes(x))).toEqual([]);
  await ctx.close();
});

for (const scheme of ['light', 'dark'] as const) {
  test(`prompts: axe finds no serious or critical violations on the catalog, a prompt, the form, My prompts and the tag admin (${scheme})`, async ({ browser }) => {
    test.setTimeout(90_000);
    const stamp = uniqueLocal('px');
    const author = await signIn(browser, `${stamp}-a`);
    const latin = word(9);
    const id = await createPrompt(author.page, {
      title: `Accessible ${capitalize(latin)}`,
      text: 'Summarise {{document}} for {{reader}}.',
      tags: ['writing', 'research'],
    });
    // The administrator of playwright.config.ts (ADMIN_EMAILS), through
    // the OIDC peer: login "admin" has the verified admin@example.test.
    const admin = await signIn(browser, 'admin');

    const problems: string[] = [];
    const check = async (who: User, name: string, url: string, ready: string) => {
      await who.page.emulateMedia({ colorScheme: scheme });
      await who.page.goto(url);
      await expect(who.page.getByTestId(ready).first()).toBeVisible();
      const results = await new AxeBuilder({ page: who.page }).analyze();
      for (const v of results.violations) {
        if (v.impact === 'serious' || v.impact === 'critical') {
          problems.push(`${name}: ${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
        }
      }
    };
    await check(author, 'catalog', '/prompts', 'prompt-card');
    await check(author, 'catalog with tags', '/prompts?tag=research&tag=writing', 'prompt-card');
    await check(author, 'search results', `/prompts?q=${latin.slice(0, 4)}`, 'search-note');
    await check(author, 'prompt page (author)', `/prompts/${id}`, 'prompt-page');
    await check(admin, 'prompt page (voter)', `/prompts/${id}`, 'vote-like');
    await check(author, 'new prompt form', '/prompts/new', 'prompt-form');
    await check(author, 'edit form', `/prompts/${id}/edit`, 'prompt-form');
    await check(author, 'my prompts', '/prompts/mine', 'my-prompts-page');
    await check(admin, 'tag admin', '/admin/tags', 'admin-tags');
    // On a phone the tags table scrolls inside its card; the page does not.
    await admin.page.setViewportSize({ width: 390, height: 844 });
    await admin.page.goto('/admin/tags');
    expect(await admin.page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    await admin.page.setViewportSize({ width: 1280, height: 900 });

    // The form with field errors.
    await author.page.goto('/prompts/new');
    await author.page.getByTestId('prompt-submit').click();
    await expect(author.page.getByTestId('error-summary')).toBeVisible();
    const results = await new AxeBuilder({ page: author.page }).analyze();
    for (const v of results.violations) {
      if (v.impact === 'serious' || v.impact === 'critical') {
        problems.push(`form with errors: ${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
      }
    }
    expect(problems).toEqual([]);
    await author.ctx.close();
    await admin.ctx.close();
  });
}

test('prompts: Save keeps a prompt on the saved list, in place, and Remove takes it off', async ({ browser }) => {
  test.setTimeout(60_000);
  const stamp = uniqueLocal('sv');
  const title = `Keeper ${capitalize(word(8))}`;
  const a = await signIn(browser, `${stamp}-a`);
  const id = await createPrompt(a.page, { title, text: 'Summarise {{topic}} in three lines.', tags: ['writing'] });
  await a.ctx.close();

  const b = await signIn(browser, `${stamp}-b`);
  const page = b.page;
  await page.goto(`/prompts/${id}`);
  await markPage(page);
  const save = page.getByTestId('save-prompt');
  await expect(save).toHaveAttribute('aria-pressed', 'false');
  await save.click();
  await expect(page.getByTestId('save-prompt')).toHaveAttribute('aria-pressed', 'true');
  await expect(page.getByTestId('save-prompt')).toContainText('Saved');
  await expectSameDocument(page);

  await page.goto('/prompts');
  await page.getByTestId('saved-prompts').click();
  await expect(page).toHaveURL(/\/prompts\/saved$/);
  await expect(card(page, id)).toContainText(title);
  const problems = await axeProblems(page, '/prompts/saved');
  await card(page, id).getByTestId('unsave-prompt').click();
  await expect(page.getByTestId('flash')).toBeVisible();
  await expect(page.getByTestId('saved-empty')).toBeVisible();
  expect(problems).toEqual([]);
  await b.ctx.close();
});
