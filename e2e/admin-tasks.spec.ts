// The admin's view of the background task queue end to end: the page and
// its card on the overview. No route makes a task fail for good here, so
// the dead tasks' rows and their repairs are covered by the Go tests
// (internal/app/admin/tasks_test.go); this checks the page as a browser
// sees it, with whatever the queue holds: its counts, its lists or their
// empty states, axe, and no overflow on a phone.
import { test, expect } from '@playwright/test';
import { adminEmail, axeProblems, newSignedInPage, signInWithCode, uniqueEmail } from './helpers';

test('the background tasks page shows the queue, passes axe and does not overflow a phone', async ({ browser }) => {
  test.setTimeout(60_000);
  const admin = await newSignedInPage(browser, adminEmail);
  await admin.page.goto('/admin');
  const card = admin.page.getByTestId('admin-tool-tasks');
  await expect(card.getByTestId('admin-tool-note')).toContainText('waiting');
  await card.getByRole('link', { name: 'Background tasks' }).click();
  await expect(admin.page).toHaveURL(/\/admin\/tasks$/);
  for (const width of [390, 1280]) {
    await admin.page.setViewportSize({ width, height: 900 });
    const res = await admin.page.goto('/admin/tasks');
    expect(res?.status()).toBe(200);
    await expect(admin.page.getByRole('heading', { level: 1, name: 'Background tasks' })).toBeVisible();
    for (const state of ['waiting', 'retrying', 'running', 'dead']) {
      await expect(admin.page.getByTestId(`tasks-total-${state}`)).toHaveText(/\d/);
    }
    // Each list shows its rows or says it is empty.
    await expect(admin.page.getByTestId('tasks-soonest').getByTestId('task-row').first()
      .or(admin.page.getByTestId('tasks-soonest-empty'))).toBeVisible();
    await expect(admin.page.getByTestId('dead-task-row').first().or(admin.page.getByTestId('tasks-dead-empty'))).toBeVisible();
    expect(await admin.page.evaluate(() => document.documentElement.scrollWidth), `tasks at ${width}px`).toBeLessThanOrEqual(width);
  }
  expect(await axeProblems(admin.page, 'admin tasks')).toEqual([]);
});

test('a member who is not an admin gets 403 on the tasks page', async ({ page }) => {
  await signInWithCode(page, uniqueEmail('notadmin-tasks'));
  const res = await page.goto('/admin/tasks');
  expect(res?.status()).toBe(403);
});
