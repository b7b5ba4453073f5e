// Events end to end (issue 12): an organizer creates an event with two
// seats and publishes it; three people register and the third waits at
// position 1; one cancels and the third is going, told in the inbox; the
// organizer checks an attendee in from the ticket's code; the .ics
// downloads with the event; the organizer sends an update that the
// guest going reads on the page and in the inbox. axe runs on the listing
// (cards and month), the event page, the ticket and the organizer's
// form, check-in and update form, light and dark; an event that needs
// approval takes a request (its questions in words, by a choice and by
// several choices), approved from check-in (axe on the waiting
// state). The admin is an organizer (login "admin" at the OIDC peer is
// admin@example.test).
import { test, expect, type Page } from '@playwright/test';
import { readFileSync } from 'node:fs';
import { uniqueLocal, axeProblems, personWithOIDC, signInDemo } from './helpers';

// publishEvent fills the new-event form org is on, saves and publishes
// it, and returns the event's path.
async function publishEvent(org: Page, f: { title: string; category: string; start: string; end: string; place?: string; capacity: string; approval?: boolean; question?: string; choiceQuestion?: { question: string; choices: string[] }; severalQuestion?: { question: string; choices: string[] } }): Promise<string> {
  await org.fill('#event-title', f.title);
  await org.selectOption('#event-category', f.category);
  await org.fill('#event-start', f.start);
  await org.fill('#event-end', f.end);
  if (f.place) await org.fill('#event-place', f.place);
  await org.fill('#event-capacity', f.capacity);
  if (f.approval) await org.getByTestId('event-approval').check();
  if (f.question) await org.getByLabel('Question 1', { exact: true }).fill(f.question);
  if (f.choiceQuestion) {
    await org.getByLabel('Question 2', { exact: true }).fill(f.choiceQuestion.question);
    await org.getByLabel('Choices for question 2').fill(f.choiceQuestion.choices.join('\n'));
  }
  if (f.severalQuestion) {
    await org.getByLabel('Question 3', { exact: true }).fill(f.severalQuestion.question);
    await org.getByLabel('Choices for question 3').fill(f.severalQuestion.choices.join('\n'));
    await org.getByTestId('event-several3').check();
  }
  await org.getByTestId('event-submit').click();
  await org.getByTestId('event-publish').click();
  await expect(org.getByTestId('event-unpublish')).toBeVisible();
  return new URL(org.url()).pathname;
}

test('two seats, three people: the waitlist moves up on a cancellation, check-in, .ics and axe on every events page', async ({ browser }) => {
  test.setTimeout(120_000);
  const title = `Jazz night ${uniqueLocal('ev')}`;
  const problems: string[] = [];

  const org = await personWithOIDC(browser, 'admin');
  await org.goto('/events/new');
  problems.push(...(await axeProblems(org, 'new event form')));
  const eventPath = await publishEvent(org, { title, category: 'concert', start: '2031-03-07T20:00', end: '2031-03-07T23:00', place: 'Blue Note', capacity: '2' });

  const [ann, bob, cat] = [
    await personWithOIDC(browser, uniqueLocal('ev-ann')),
    await personWithOIDC(browser, uniqueLocal('ev-bob')),
    await personWithOIDC(browser, uniqueLocal('ev-cat')),
  ];
  await ann.goto('/events?category=concert');
  await expect(ann.getByTestId('event-card').filter({ hasText: title })).toContainText('Only 2 seats left');
  for (const p of [ann, bob]) {
    await p.goto(eventPath);
    await p.getByTestId('event-register').click();
    await expect(p.getByTestId('registration-state')).toHaveAttribute('data-state', 'going');
  }
  await cat.goto(eventPath);
  await expect(cat.getByTestId('event-register')).toContainText('waitlist');
  await cat.getByTestId('event-register').click();
  await expect(cat.getByTestId('registration-state')).toHaveAttribute('data-state', 'waitlist');
  await expect(cat.getByTestId('registration-state')).toContainText('number 1 of 1');
  await cat.goto('/events?category=concert');
  await expect(cat.getByTestId('event-card').filter({ hasText: title })).toContainText('Full · 1 waiting');
  problems.push(...(await axeProblems(cat, 'listing')));
  await cat.goto('/events?view=month&month=2031-03');
  await expect(cat.getByTestId('month-day').filter({ hasText: title })).toHaveAttribute('data-date', '2031-03-07');
  problems.push(...(await axeProblems(cat, 'month')));

  // Bob gives up his seat: it goes to Cat in the same step.
  await bob.goto(eventPath);
  await bob.getByTestId('event-cancel').click();
  await bob.getByTestId('event-cancel-confirm').click();
  await expect(bob.getByTestId('register-form')).toBeVisible();
  await cat.goto(eventPath);
  await expect(cat.getByTestId('registration-state')).toHaveAttribute('data-state', 'going');
  problems.push(...(await axeProblems(cat, 'event page')));
  await expect(async () => {
    await cat.goto('/inbox');
    await expect(cat.getByTestId('inbox-item').filter({ hasText: 'A seat opened' })).toHaveCount(1, { timeout: 500 });
  }).toPass({ timeout: 15_000 });

  // Cat's ticket; the organizer scans its code and checks her in.
  await cat.goto(eventPath);
  await cat.getByTestId('ticket-link').click();
  await expect(cat.getByTestId('ticket-qr')).toBeVisible();
  problems.push(...(await axeProblems(cat, 'ticket')));
  const code = (await cat.getByTestId('ticket-code').innerText()).trim();
  await org.goto(`${eventPath}/check-in?ticket=${code}`);
  problems.push(...(await axeProblems(org, 'check-in')));
  const found = org.getByTestId('checkin-found').getByTestId('attendee');
  await expect(found).toHaveAttribute('data-ticket', code);
  await found.getByTestId('checkin-mark').click();
  await expect(org.getByTestId('checkin-found').getByTestId('attendee')).toHaveAttribute('data-attended', 'true');
  await org.goto(`${eventPath}/check-in`);
  await expect(org.getByTestId('checkin-count')).toContainText('1 of 2');
  await cat.reload();
  await expect(cat.getByTestId('ticket-attended')).toBeVisible();

  // The organizer writes to the guests: Ann, going, reads it on the
  // event's page and in her inbox; Bob, who cancelled, sees nothing.
  await org.goto(eventPath);
  await org.getByTestId('event-send-update').click();
  problems.push(...(await axeProblems(org, 'update form')));
  await org.fill('#update-body', 'Doors open at **19:30**.');
  await org.getByTestId('update-submit').click();
  await expect(org.getByTestId('event-update')).toContainText('Doors open at 19:30');
  await ann.goto(eventPath);
  await expect(ann.getByTestId('event-update').locator('strong')).toHaveText('19:30');
  problems.push(...(await axeProblems(ann, 'event page with an update')));
  await expect(async () => {
    await ann.goto('/inbox');
    await expect(ann.getByTestId('inbox-item').filter({ hasText: 'wrote to the guests' })).toHaveCount(1, { timeout: 500 });
  }).toPass({ timeout: 15_000 });
  await bob.goto(eventPath);
  await expect(bob.getByTestId('event-update')).toHaveCount(0);

  // The .ics downloads, with the event and its confirmed status.
  await ann.goto(eventPath);
  const [download] = await Promise.all([ann.waitForEvent('download'), ann.getByTestId('event-ics').click()]);
  const ics = readFileSync(await download.path(), 'utf8');
  expect(ics).toContain(`SUMMARY:${title}`);
  expect(ics).toContain('STATUS:CONFIRMED');

  expect(problems).toEqual([]);
});

// Approval (Luma's "Require approval"): an organizer's event takes
// requests to join; the person waits for approval (axe on that state),
// the organizer approves them from the check-in page, reading their
// answers to the event's questions (one in words, one a choice), and
// they are going with a ticket, told in their inbox.
test('an event that needs approval: request, approve, and the person is in', async ({ browser }) => {
  test.setTimeout(90_000);
  const title = `Supper club ${uniqueLocal('ap')}`;
  const problems: string[] = [];

  const org = await personWithOIDC(browser, 'admin');
  await org.goto('/events/new');
  const eventPath = await publishEvent(org, { title, category: 'party', start: '2031-04-11T19:00', end: '2031-04-11T22:00', capacity: '8', approval: true, question: 'Any dietary needs?', choiceQuestion: { question: 'How did you hear of us?', choices: ['A friend', 'The newsletter', 'Somewhere else'] }, severalQuestion: { question: 'What will you bring?', choices: ['Food', 'Drinks', 'Music'] } });

  const dora = await personWithOIDC(browser, uniqueLocal('ap-dora'));
  await dora.goto(eventPath);
  await expect(dora.getByTestId('event-register')).toHaveText('Request to join');
  problems.push(...(await axeProblems(dora, 'event page with a question')));
  // Without an answer the form comes back saying so; then she answers.
  await dora.getByTestId('event-register').click();
  await expect(dora.getByTestId('register-page')).toBeVisible();
  await expect(dora.getByTestId('field-error').first()).toHaveText('Answer this question.');
  const choices = dora.getByTestId('register-choices');
  await expect(choices.first().getByTestId('field-error')).toHaveText('Choose one of the answers.');
  await expect(choices.last().getByTestId('field-error')).toHaveText('Choose one or more of the answers.');
  problems.push(...(await axeProblems(dora, 'register page with an error')));
  await dora.getByLabel('Any dietary needs?').fill('Vegetarian');
  await dora.getByRole('group', { name: 'How did you hear of us?' }).getByLabel('The newsletter').check();
  const bring = dora.getByRole('group', { name: 'What will you bring?' });
  await bring.getByLabel('Food').check();
  await bring.getByLabel('Music').check();
  await dora.getByTestId('event-register').click();
  await expect(dora.getByTestId('registration-state')).toHaveAttribute('data-state', 'pending');
  await expect(dora.getByTestId('registration-state')).toContainText("Waiting for the organizer's approval");
  await expect(dora.getByTestId('ticket-link')).toHaveCount(0);
  problems.push(...(await axeProblems(dora, 'event page, waiting for approval')));
  await dora.goto('/events/mine');
  await expect(dora.getByTestId('my-event').filter({ hasText: title })).toHaveAttribute('data-status', 'pending');
  problems.push(...(await axeProblems(dora, 'my events, waiting for approval')));

  // The organizer sees the request from the event's page and approves it.
  await org.goto(eventPath);
  await org.getByTestId('organizer-requests').locator('a').click();
  await expect(org.getByTestId('request')).toHaveCount(1);
  await expect(org.getByTestId('request').getByTestId('guest-answers')).toContainText('Vegetarian');
  await expect(org.getByTestId('request').getByTestId('guest-answers')).toContainText('The newsletter');
  await expect(org.getByTestId('request').getByTestId('guest-answers')).toContainText('Food, Music');
  problems.push(...(await axeProblems(org, 'check-in with a request to join')));
  await org.getByTestId('request').getByTestId('request-approve').click();
  await expect(org.getByTestId('request')).toHaveCount(0);
  await expect(org.getByTestId('checkin-count')).toContainText('0 of 1');

  await dora.goto(eventPath);
  await expect(dora.getByTestId('registration-state')).toHaveAttribute('data-state', 'going');
  await dora.getByTestId('ticket-link').click();
  await expect(dora.getByTestId('ticket-qr')).toBeVisible();
  await expect(async () => {
    await dora.goto('/inbox');
    await expect(dora.getByTestId('inbox-item').filter({ hasText: 'You are in' })).toHaveCount(1, { timeout: 500 });
  }).toPass({ timeout: 15_000 });

  expect(problems).toEqual([]);
});

// A guest of the demo's past picnic who has not rated it (Masha, who
// reads Russian) finds it under "Прошедшие" in My events with "Оценить",
// rates it on a phone, and then sees her stars there; axe on the rating
// form and on My events with a past event rated.
test('a guest rates a past event from My events, on the demo instance', async ({ browser }) => {
  const ctx = await signInDemo(browser, 'masha', { width: 390, height: 844 });
  const page = await ctx.newPage();
  const problems: string[] = [];
  await page.goto('/events/mine');
  const picnic = page.getByTestId('my-events-past').getByTestId('my-event').filter({ hasText: 'Summer picnic in the park' });
  await expect(picnic).toContainText('Вы были в списке гостей');
  await picnic.getByTestId('my-event-rate').click();
  await expect(page).toHaveURL(/\/events\/[0-9A-Z]{26}\/feedback$/);
  problems.push(...(await axeProblems(page, 'the rating form, in Russian')));
  await page.getByTestId('feedback-rating-4').check();
  await page.locator('textarea[name="feedback"]').fill('Отличные игры, спасибо!');
  await page.getByTestId('feedback-submit').click();
  await expect(page).toHaveURL(/\/events\/[0-9A-Z]{26}(#feedback)?$/);
  await expect(page.getByTestId('flash')).toContainText('Спасибо');

  await page.goto('/events/mine');
  await expect(picnic.getByTestId('my-event-rate')).toHaveCount(0);
  await expect(picnic.getByTestId('my-event-rated')).toContainText('★★★★☆');
  await expect(picnic.getByTestId('my-event-rated')).toContainText('Ваша оценка: 4 звезды: очень хорошо');
  problems.push(...(await axeProblems(page, 'my events with a past event rated')));
  await ctx.close();
  expect(problems).toEqual([]);
});
