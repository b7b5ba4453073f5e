// Forum end to end (issue 14): an admin creates a section; a member
// opens a topic (trying the preview first); a second member replies with
// a quote and a mention; the first sees "1 new" on the section, gets the
// mention in the inbox, and lands on the first unread post; the admin
// pins and locks, and the member then sees the pin and no reply form.
// The first member marks the reply as the answer; the second mutes the
// topic from its bell menu; the admin edits the section from its row on
// the admin page. The second reports the opening post, and the admin
// takes it down from the moderation queue. axe runs on the forum home,
// the section, the topic (solved, and with its menu open), the new topic
// form, the reply page, the sections' admin page, the report page, the
// queue and its closed reports, light and dark; the topic is checked at 390 px.
// A topic opens with a poll, which a member votes in and its author
// closes (axe on the form and the poll before and after a vote).
import { test, expect } from '@playwright/test';
import { addForumSection, uniqueLocal, axeProblems, personWithOIDC } from './helpers';

test('a section, a topic, a quoted reply with a mention, "1 new" and the first unread post, then pin and lock', async ({ browser }) => {
  test.setTimeout(180_000); // the suite's longest: three people, eleven axe runs in two colours (53 s in a quiet CI run)
  const stamp = uniqueLocal('fo');
  const slug = stamp.replace(/[^a-z0-9]+/g, '-');
  const sectionName = `Section ${stamp}`;
  const title = `Topic ${stamp}`;
  const problems: string[] = [];

  const admin = await personWithOIDC(browser, 'admin');
  await addForumSection(admin, slug, sectionName);

  const aLogin = `${stamp}-a`;
  const a = await personWithOIDC(browser, aLogin);
  const b = await personWithOIDC(browser, `${stamp}-b`);

  await a.goto('/forum');
  await expect(a.getByTestId('forum-section').filter({ hasText: sectionName })).toBeVisible();
  problems.push(...(await axeProblems(a, 'forum home')));
  await a.getByTestId('forum-section').filter({ hasText: sectionName }).getByRole('link', { name: sectionName }).click();
  await a.getByTestId('new-topic').click();
  await expect(a.locator('#topic-section')).toHaveValue(slug);
  await a.locator('#topic-title').fill(title);
  await a.locator('#topic-body').fill(`Who is **coming** on Friday? (${stamp})`);
  await a.getByTestId('preview').click();
  await expect(a.getByTestId('preview-box').locator('strong')).toHaveText('coming');
  problems.push(...(await axeProblems(a, 'new topic form')));
  await a.getByTestId('compose-submit').click();
  await expect(a.getByTestId('topic-page')).toBeVisible();
  const topicPath = new URL(a.url()).pathname;

  // B quotes A's post and mentions A.
  await b.goto(topicPath);
  await b.getByTestId('post').first().getByTestId('post-quote').click();
  await expect(b.locator('#reply-body')).toHaveValue(/> Who is \*\*coming\*\* on Friday\?/);
  problems.push(...(await axeProblems(b, 'reply page')));
  await b.locator('#reply-body').press('End');
  await b.locator('#reply-body').pressSequentially(`Me! @${aLogin} see you there`);
  await b.getByTestId('reply-submit').click();
  await expect(b.getByTestId('post')).toHaveCount(2);
  await expect(b.getByTestId('post').nth(1).locator('blockquote')).toBeVisible();

  // A: "1 new" in the section, the mention in the inbox, and the topic
  // opens at the reply.
  await a.goto(`/forum/${slug}`);
  await expect(a.getByTestId('topic-row').filter({ hasText: title }).getByTestId('topic-unread')).toHaveText('1 new');
  problems.push(...(await axeProblems(a, 'section')));
  await expect(async () => {
    await a.goto('/inbox');
    await expect(a.getByTestId('inbox-item').filter({ hasText: title })).toHaveCount(1, { timeout: 500 });
  }).toPass({ timeout: 15_000 });
  await a.goto(`/forum/${slug}`);
  await a.getByTestId('topic-row').filter({ hasText: title }).getByRole('link', { name: title }).click();
  await expect(a.getByTestId('first-unread')).toBeVisible();
  await expect(a.locator('#first-unread + [data-testid="post"]')).toHaveAttribute('data-num', '2');
  problems.push(...(await axeProblems(a, 'topic')));

  // A likes the reply without leaving the page (htmx), and it stays liked.
  const reply = a.locator('[data-testid="post"][data-num="2"]');
  await reply.getByTestId('post-like').click();
  await expect(reply.getByTestId('post-like')).toHaveAttribute('aria-pressed', 'true');
  await expect(reply.getByTestId('post-likes')).toHaveText('1');

  // The admin pins and locks.
  await admin.goto(topicPath);
  await admin.getByTestId('mod-tools').locator('summary').click();
  await admin.getByTestId('mod-pin').click();
  await expect(admin.getByTestId('pinned-badge')).toBeVisible();
  await admin.getByTestId('mod-tools').locator('summary').click();
  await admin.getByTestId('mod-lock').click();
  await expect(admin.getByTestId('locked-badge')).toBeVisible();

  await b.goto(topicPath);
  await expect(b.getByTestId('topic-locked')).toBeVisible();
  await expect(b.getByTestId('reply-form')).toHaveCount(0);
  await b.goto(`/forum/${slug}`);
  await expect(b.locator('[data-testid="topic-row"][data-pinned="true"]').filter({ hasText: title })).toBeVisible();

  // A marks B's reply as the answer from its menu: it shows under the
  // title, and the section's list says Solved.
  await a.goto(topicPath);
  const answer = a.locator('[data-testid="post"][data-num="2"]');
  await answer.getByTestId('post-more').locator('summary').click();
  await answer.getByTestId('post-solve').click();
  await expect(a.getByTestId('topic-solution')).toContainText('Me!');
  await expect(a.locator('[data-testid="post"][data-num="2"]').getByTestId('post-solution')).toBeVisible();
  problems.push(...(await axeProblems(a, 'solved topic')));
  await a.goto(`/forum/${slug}`);
  await expect(a.getByTestId('topic-row').filter({ hasText: title }).getByTestId('topic-solved')).toBeVisible();

  // B mutes the topic from the bell menu: the section marks it muted.
  await b.goto(topicPath);
  await b.getByTestId('topic-level').locator('summary').click();
  problems.push(...(await axeProblems(b, 'topic with the notification menu open')));
  await b.getByTestId('level-muted').click();
  await expect(b.getByTestId('topic-level')).toHaveAttribute('data-level', 'muted');
  await b.goto(`/forum/${slug}`);
  await expect(b.getByTestId('topic-row').filter({ hasText: title }).getByTestId('topic-muted')).toBeVisible();

  // The admin opens the section's row on the admin page and saves a
  // description.
  await admin.goto('/admin/forum');
  const row = admin.locator(`[data-testid="admin-section"][data-section="${slug}"]`);
  await row.locator('summary').click();
  await row.getByLabel('Description (optional)', { exact: true }).fill('Plans for Fridays.');
  await row.getByTestId('section-save').click();
  await expect(admin.getByTestId('flash')).toBeVisible();
  await expect(admin.locator(`[data-testid="admin-section"][data-section="${slug}"] summary`)).toContainText('Plans for Fridays.');
  problems.push(...(await axeProblems(admin, 'forum sections admin')));

  // B reports A's opening post from its menu; the admin finds it in the
  // moderation queue and takes it down: B sees it hidden.
  await b.goto(topicPath);
  const opening = b.locator('[data-testid="post"][data-num="1"]');
  await opening.getByTestId('post-more').locator('summary').click();
  await opening.getByTestId('post-report').click();
  await expect(b.getByTestId('report-excerpt')).toContainText(stamp);
  problems.push(...(await axeProblems(b, 'report a post')));
  await b.getByLabel('Spam').check();
  await b.getByLabel('Note for the moderators (optional)').fill('An advert for Friday.');
  await b.getByTestId('report-submit').click();
  await expect(b.getByTestId('flash')).toContainText('The moderators will look at it');
  await admin.goto('/admin');
  await expect(admin.getByTestId('admin-tool-reports').getByTestId('admin-tool-open')).toBeVisible();
  await admin.getByTestId('admin-tool-reports').getByRole('link').click();
  const item = admin.getByTestId('report-row').filter({ hasText: stamp });
  await expect(item.getByTestId('report-note')).toContainText('An advert for Friday.');
  problems.push(...(await axeProblems(admin, 'moderation queue')));
  await item.getByTestId('report-resolve-note').fill('Advertising');
  await item.getByTestId('report-take-down').click();
  await expect(admin.getByTestId('flash')).toBeVisible();
  await expect(admin.getByTestId('report-row').filter({ hasText: stamp })).toHaveCount(0);
  await admin.getByTestId('reports-tab-true').click();
  await expect(admin.getByTestId('report-row').filter({ hasText: stamp }).getByTestId('report-resolution')).toContainText('Advertising');
  problems.push(...(await axeProblems(admin, 'closed reports')));
  await b.goto(topicPath);
  await expect(b.locator('[data-testid="post"][data-num="1"]').getByTestId('post-hidden')).toBeVisible();

  // The topic fits a phone.
  await b.setViewportSize({ width: 390, height: 800 });
  await b.goto(topicPath);
  expect(await b.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
  expect(problems).toEqual([]);
});

// A section's moderator reviews its reports (Discourse's category
// moderators): the admin names M as the section's moderator; B reports
// A's post; M is told in the inbox, follows the notice to /review (axe,
// light and dark), and takes the post down; B then sees it hidden.
test("a section's moderator is told of a report in it and takes the post down", async ({ browser }) => {
  test.setTimeout(90_000);
  const stamp = uniqueLocal('fm');
  const slug = stamp.replace(/[^a-z0-9]+/g, '-');
  const title = `Review ${stamp}`;
  const modLogin = `${stamp}-m`;
  const m = await personWithOIDC(browser, modLogin);
  const a = await personWithOIDC(browser, `${stamp}-a`);
  const b = await personWithOIDC(browser, `${stamp}-b`);

  const admin = await personWithOIDC(browser, 'admin');
  await addForumSection(admin, slug, `Section ${stamp}`, `${modLogin.replace(/[^A-Za-z0-9._-]/g, '.')}@example.test`);

  await a.goto(`/forum/compose?section=${slug}`);
  await a.locator('#topic-title').fill(title);
  await a.locator('#topic-body').fill(`Cheap watches, today only (${stamp})`);
  await a.getByTestId('compose-submit').click();
  await expect(a.getByTestId('topic-page')).toBeVisible();
  const topicPath = new URL(a.url()).pathname;

  await b.goto(`${topicPath}/posts/1/report`);
  await b.getByLabel('Spam').check();
  await b.getByTestId('report-submit').click();
  await expect(b.getByTestId('flash')).toContainText('The moderators will look at it');

  await expect(async () => {
    await m.goto('/inbox');
    await expect(m.getByTestId('inbox-item').filter({ hasText: 'Reported in a section you moderate' })).toHaveCount(1, { timeout: 500 });
  }).toPass({ timeout: 15_000 });
  await m.getByTestId('inbox-item').filter({ hasText: 'Reported in a section you moderate' }).getByTestId('inbox-open').click();
  await expect(m).toHaveURL(/\/review$/);
  const item = m.getByTestId('report-row').filter({ hasText: stamp });
  await expect(item).toHaveCount(1);
  const problems = await axeProblems(m, 'review');
  await item.getByTestId('report-resolve-note').fill('Advertising');
  await item.getByTestId('report-take-down').click();
  await expect(m.getByTestId('flash')).toBeVisible();
  await expect(m.getByTestId('report-row').filter({ hasText: stamp })).toHaveCount(0);
  await b.goto(topicPath);
  await expect(b.locator('[data-testid="post"][data-num="1"]').getByTestId('post-hidden')).toBeVisible();
  expect(problems).toEqual([]);
});

// Discourse-style live lists and topics: B, on a section's page, is
// offered the topic A opens there ("Show 1 new or updated topic"); B
// then reads it while A replies, and B's page offers the reply without a
// reload ("Show 1 new reply"), appends it below the last post when
// asked, and keeps B's half-written reply.
test('a reply reaches someone reading the topic, without a reload', async ({ browser }) => {
  test.setTimeout(90_000);
  const stamp = uniqueLocal('fl');
  const slug = stamp.replace(/[^a-z0-9]+/g, '-');
  const admin = await personWithOIDC(browser, 'admin');
  await addForumSection(admin, slug, `Live ${stamp}`);

  const a = await personWithOIDC(browser, `${stamp}-a`);
  const b = await personWithOIDC(browser, `${stamp}-b`);
  await b.goto(`/forum/${slug}`);
  await expect(b.getByTestId('topics-empty')).toBeVisible();
  await a.goto(`/forum/compose?section=${slug}`);
  await a.locator('#topic-title').fill(`Live topic ${stamp}`);
  await a.locator('#topic-body').fill('Who has the keys?');
  await a.getByTestId('compose-submit').click();
  await expect(a.getByTestId('topic-page')).toBeVisible();
  const topicPath = new URL(a.url()).pathname;

  // B, on the section's page, is offered the new topic.
  const news = b.getByTestId('section-live-show');
  await expect(news).toHaveText('Show 1 new or updated topic', { timeout: 15_000 });
  expect(await axeProblems(b, 'section with news')).toEqual([]);
  await news.click();
  await b.getByRole('link', { name: `Live topic ${stamp}` }).click();
  await expect(b).toHaveURL(new RegExp(`${topicPath}$`));
  await expect(b.getByTestId('post')).toHaveCount(1);
  await expect(b.getByTestId('topic-live-show')).toHaveCount(0);
  await b.locator('#reply-body').fill('I think Tom');

  await a.locator('#reply-body').fill(`I have them (${stamp})`);
  await a.getByTestId('reply-submit').click();
  await expect(a.getByTestId('post')).toHaveCount(2);

  const show = b.getByTestId('topic-live-show');
  await expect(show).toHaveText('Show 1 new reply', { timeout: 15_000 });
  expect(await axeProblems(b, 'topic with new replies')).toEqual([]);
  await show.click();
  await expect(b.getByTestId('post')).toHaveCount(2);
  await expect(b.getByTestId('post').nth(1)).toContainText(`I have them (${stamp})`);
  await expect(show).toHaveCount(0);
  await expect(b.locator('#reply-body')).toHaveValue('I think Tom');
});

// A member opens a topic with a poll (its fields folded under "Add a
// poll"); another votes from the radio group and sees the results with
// their vote marked, changes it, and the author closes the poll, which
// then takes no votes. Then a poll of several choices, closing in a
// week: two ticked, then one; the section's list marks it "Poll". axe
// on the new topic form with the poll open, the polls to vote in and
// the results, light and dark.
test('a topic opens with a poll; a member votes and changes the vote; its author closes it', async ({ browser }) => {
  test.setTimeout(120_000);
  const stamp = uniqueLocal('fp');
  const slug = stamp.replace(/[^a-z0-9]+/g, '-');
  const problems: string[] = [];
  const admin = await personWithOIDC(browser, 'admin');
  await addForumSection(admin, slug, `Polls ${stamp}`);
  const a = await personWithOIDC(browser, `${stamp}-a`);
  const b = await personWithOIDC(browser, `${stamp}-b`);

  await a.goto(`/forum/compose?section=${slug}`);
  await a.locator('#topic-title').fill(`Picnic day ${stamp}`);
  await a.locator('#topic-body').fill('Which day suits everyone?');
  await a.getByTestId('compose-poll').locator('summary').click();
  await a.locator('#poll-question').fill('Which day?');
  await a.locator('#poll-options').fill('Saturday\nSunday');
  problems.push(...(await axeProblems(a, 'new topic form with a poll')));
  await a.getByTestId('compose-submit').click();
  await expect(a.getByTestId('topic-poll')).toContainText('Which day?');
  const topicPath = new URL(a.url()).pathname;

  await b.goto(topicPath);
  const poll = b.getByTestId('topic-poll');
  await expect(poll.getByTestId('poll-form')).toBeVisible();
  problems.push(...(await axeProblems(b, 'a poll to vote in')));
  await poll.getByRole('radio', { name: 'Sunday' }).check();
  await poll.getByTestId('poll-vote').click();
  await expect(b.getByTestId('flash')).toContainText('Your vote is in');
  await expect(poll.getByTestId('poll-result').filter({ hasText: 'Sunday' })).toContainText('Your vote');
  await expect(poll.getByTestId('poll-result').filter({ hasText: 'Sunday' })).toContainText('100%');
  await expect(poll.getByTestId('poll-voters')).toHaveText('1 person voted');
  problems.push(...(await axeProblems(b, 'a poll voted in')));
  await poll.getByTestId('poll-change').click();
  await poll.getByRole('radio', { name: 'Saturday' }).check();
  await poll.getByTestId('poll-vote').click();
  await expect(poll.getByTestId('poll-result').filter({ hasText: 'Saturday' })).toContainText('Your vote');

  await a.goto(topicPath);
  await a.getByTestId('poll-close').click();
  await expect(a.getByTestId('poll-closed')).toBeVisible();
  await b.goto(topicPath);
  await expect(poll.getByTestId('poll-closed')).toBeVisible();
  await expect(poll.getByTestId('poll-form')).toHaveCount(0);
  await expect(poll.getByTestId('poll-unvote')).toHaveCount(0);

  // A poll of several choices that closes by itself in a week: the
  // member ticks two days, then changes the vote to one.
  await a.goto(`/forum/compose?section=${slug}`);
  await a.locator('#topic-title').fill(`Practice days ${stamp}`);
  await a.locator('#topic-body').fill('Tick every day you can come.');
  await a.getByTestId('compose-poll').locator('summary').click();
  await a.locator('#poll-options').fill('Saturday\nSunday\nMonday');
  await a.getByTestId('compose-poll-multiple').check();
  await a.getByTestId('compose-poll-closes').selectOption('1w');
  await a.getByTestId('compose-submit').click();
  await expect(a.getByTestId('poll-closes')).toContainText('Closes');
  const severalPath = new URL(a.url()).pathname;
  await b.goto(severalPath);
  await expect(poll.getByRole('group', { name: 'Choose one or more' })).toBeVisible();
  problems.push(...(await axeProblems(b, 'a poll of several choices')));
  await poll.getByRole('checkbox', { name: 'Saturday' }).check();
  await poll.getByRole('checkbox', { name: 'Monday' }).check();
  await poll.getByTestId('poll-vote').click();
  await expect(poll.getByTestId('poll-mine')).toHaveCount(2);
  await poll.getByTestId('poll-change').click();
  await poll.getByRole('checkbox', { name: 'Monday' }).uncheck();
  await poll.getByTestId('poll-vote').click();
  await expect(poll.getByTestId('poll-mine')).toHaveCount(1);
  await expect(poll.getByTestId('poll-result').filter({ hasText: 'Saturday' })).toContainText('Your vote');
  await b.goto(`/forum/${slug}`);
  await expect(b.getByTestId('topic-row').filter({ hasText: `Practice days ${stamp}` }).getByTestId('topic-poll-badge')).toHaveText('Poll');
  expect(problems).toEqual([]);
});
