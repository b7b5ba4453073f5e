// The blog end to end: an admin writes a draft with a cover (readers do
// not see it), adds a picture for the text while words not yet saved stay
// in the editor (htmx swaps the pictures panel alone), puts the picture in
// the text, previews it and publishes; a visitor finds the post in the listing, by its
// tag, on the page of every tag and in the feed, with its picture; a
// member comments on it and edits the comment, and the author replies
// (htmx, no page load). Then axe on the blog's pages.
import path from 'node:path';
import { test, expect } from '@playwright/test';
import { blogAdminEmail, axeProblems, newSignedInPage, uniqueLocal } from './helpers';

const picture = path.join(__dirname, 'fixtures', 'avatar.png');

test('blog: a draft with pictures, published, read by a visitor by tag and feed', async ({ browser }) => {
  test.setTimeout(90_000); // three people signed in, seven axe runs
  const suffix = uniqueLocal('b').slice(-6).toLowerCase();
  const title = `Tour diary ${suffix}`;
  const tag = `diary-${suffix}`;
  const { page: admin } = await newSignedInPage(browser, blogAdminEmail);

  await admin.goto('/blog');
  await admin.getByTestId('blog-new').click();
  const form = admin.getByTestId('blog-form');
  await form.getByLabel('Title').fill(title);
  await form.getByLabel('Text').fill('Day one: **soundcheck** at noon.');
  await form.getByLabel('Tags').fill(`${tag}, tour`);
  await form.getByLabel('Cover picture').setInputFiles(picture);
  await admin.getByTestId('post-save-draft').click();
  await expect(admin.getByTestId('flash')).toContainText('Draft saved');
  await expect(admin.getByTestId('blog-status')).toContainText('draft');
  const postURL = new URL(admin.url()).pathname;
  expect(postURL).toBe(`/blog/tour-diary-${suffix}`);

  // A visitor does not see the draft.
  const visitor = await (await browser.newContext()).newPage();
  expect((await visitor.goto(postURL))?.status()).toBe(404);

  // A picture for the text: the panel comes back in place, and words
  // typed but not saved stay where they are.
  await admin.getByTestId('post-edit').click();
  const text = admin.getByTestId('blog-form').getByLabel('Text');
  await text.fill('Day one: **soundcheck** at noon. Words not saved yet.');
  await admin.getByTestId('picture-upload').getByLabel('Add a picture').setInputFiles(picture);
  await admin.getByTestId('picture-submit').click();
  await expect(admin.getByTestId('pictures-message')).toContainText('Picture added');
  await expect(text).toHaveValue(/Words not saved yet\./);
  const line = await admin.getByTestId('picture-markdown').first().inputValue();
  expect(line).toMatch(/^!\[\]\(\/media\/blog\/[0-9A-Z]{26}\/[0-9a-f]{32}\.jpg\)$/);
  await text.fill(`Day one: **soundcheck** at noon.\n\n${line.replace('![]', '![The stage at noon]')}`);
  // "Preview" shows the text as the post will, picture and all, in place.
  await admin.getByTestId('blog-form').getByTestId('preview').click();
  const preview = admin.getByTestId('preview-box');
  await expect(preview.locator('strong')).toHaveText('soundcheck');
  await expect(preview.getByRole('img', { name: 'The stage at noon' })).toBeVisible();
  await expect(text).toHaveValue(/The stage at noon/);
  await admin.getByTestId('post-publish').click();
  await expect(admin.getByTestId('flash')).toContainText('Post published');

  // The visitor finds it in the listing, by its tag, and in the feed.
  await visitor.goto('/blog');
  const card = visitor.getByTestId('blog-card').filter({ hasText: title });
  await expect(card).toBeVisible();
  await card.getByTestId('blog-tag').filter({ hasText: `#${tag}` }).click();
  await expect(visitor).toHaveURL(new RegExp(`/blog\\?tag=${tag}$`));
  await expect(visitor.getByTestId('blog-card')).toHaveCount(1);
  // The page of every tag, which the tag's listing links to, counts the
  // post under its tag and leads back to it.
  await visitor.getByTestId('blog-all-tags').click();
  await expect(visitor).toHaveURL(/\/blog\/tags$/);
  const cloudTag = visitor.locator(`[data-testid="blog-cloud-tag"][data-tag="${tag}"]`);
  await expect(cloudTag).toContainText('1 post');
  await cloudTag.click();
  await expect(visitor).toHaveURL(new RegExp(`/blog\\?tag=${tag}$`));
  await visitor.getByTestId('blog-card').getByRole('link', { name: title }).click();
  await expect(visitor.getByTestId('post-title')).toHaveText(title);
  await expect(visitor.getByTestId('post-body').locator('strong')).toHaveText('soundcheck');
  const img = visitor.getByTestId('post-body').getByRole('img', { name: 'The stage at noon' });
  await expect(img).toBeVisible();
  expect(await img.evaluate((el: HTMLImageElement) => el.naturalWidth)).toBeGreaterThan(0);
  await expect(visitor.getByTestId('post-cover')).toBeVisible();
  const feed = await visitor.request.get('/blog/feed.xml');
  expect(feed.headers()['content-type']).toContain('application/rss+xml');
  expect(await feed.text()).toContain(`<title>${title}</title>`);

  // A member comments: a blank comment is refused beside the field, then
  // the comment appears at the top of the list without a page load (htmx
  // swaps the section), rendered from Markdown; the visitor reads it.
  const { page: member } = await newSignedInPage(browser, `${uniqueLocal('bc')}@example.com`);
  await member.goto(postURL);
  const comments = member.getByTestId('blog-comments');
  await comments.getByTestId('comment-submit').click();
  await expect(comments.getByTestId('field-error')).toBeVisible();
  await comments.getByLabel('Add a comment').fill(`Great **show** (${suffix})`);
  const loads: string[] = [];
  member.on('framenavigated', (f) => { if (f === member.mainFrame()) loads.push(f.url()); });
  await comments.getByTestId('comment-submit').click();
  await expect(member.getByTestId('comment').first().getByTestId('comment-body').locator('strong')).toHaveText('show');
  await expect(member.getByTestId('blog-comments').getByLabel('Add a comment')).toHaveValue('');
  expect(loads).toEqual([]);
  // They edit it in place: the form replaces the comment, and saving
  // puts the comment back, changed and marked edited, with no page load.
  await member.getByTestId('comment').first().getByTestId('comment-edit').click();
  const editing = member.getByTestId('comment-edit-form');
  await editing.getByLabel('Your comment').fill(`Great **show**, see you in Riga (${suffix})`);
  await editing.getByTestId('comment-save').click();
  await expect(member.getByTestId('comment').first().getByTestId('comment-edited')).toBeVisible();
  expect(loads).toEqual([]);
  await visitor.goto(postURL);
  await expect(visitor.getByTestId('comment').first()).toContainText(`Great show, see you in Riga (${suffix})`);

  // The post's author replies to it: the form opens under the comment,
  // and the reply appears indented below it, with no page load.
  await admin.goto(postURL);
  // (htmx's first swap marks the history entry, a same-document
  // navigation: what counts is a document loaded.)
  const adminLoads: string[] = [];
  admin.on('domcontentloaded', (p) => adminLoads.push(p.url()));
  await admin.getByTestId('comment').first().getByTestId('comment-reply-open').click();
  const replying = admin.getByTestId('comment-reply-form');
  await expect(replying.getByRole('textbox')).toBeFocused();
  await replying.getByRole('textbox').fill(`Thank you, see you there (${suffix})`);
  await replying.getByTestId('comment-reply-submit').click();
  await expect(admin.getByTestId('comment-reply').first()).toContainText(`Thank you, see you there (${suffix})`);
  expect(adminLoads).toEqual([]);

  // axe on the listing, the tags, the post (with its comments, as a
  // visitor and as a member), the editor and the drafts.
  const problems: string[] = [];
  for (const [page, p] of [[visitor, '/blog'], [visitor, '/blog/tags'], [visitor, postURL], [member, postURL], [admin, `${postURL}/edit`], [admin, '/blog/drafts'], [admin, '/blog/new']] as const) {
    await page.goto(p);
    problems.push(...(await axeProblems(page, p)));
  }
  expect(problems).toEqual([]);
});
