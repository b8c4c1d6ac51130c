/**
 * The Runs list over a year of CI history (20,000 runs) in Chromium at 1440 px: its oldest runs are one click away
 * (Oldest), any page by number, the newest again by one click — and walking it never holds the page's main thread
 * for over 100 ms (PerformanceObserver 'longtask', from the first page drawn to the last step). The runs are written
 * through the store in one transaction (~7 s at load 8), not posted one by one. At load ~10, three walks: longest
 * walk task 54 ms (one), none in the other two; before the rows were memoized and counts shared one formatter, 57–105.
 */
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureWebBuild, launchBrowser, ROOT, type Browser } from '#test/helpers/browser.ts';
import { testApp } from '#test/helpers/dashboardApp.ts';
import { newRun } from '#test/helpers/sampleEvents.ts';
import { sqliteOf } from '#test/helpers/sqliteStore.ts';

const RUNS = 20_000;
const LONG_TASK_MS = 100;
const T0 = Date.UTC(2026, 0, 1);
/** Run i happened i × 25 min after T0: run-19999 is the newest, run-00000 the oldest. */
const idOf = (i: number) => `run-${String(i).padStart(5, '0')}`;

/** Runs before the page's scripts: every long task, with when it started. */
const LONG_TASKS = `(() => {
  window.__longTasks = [];
  new PerformanceObserver((l) => { for (const e of l.getEntries()) window.__longTasks.push([e.startTime, e.duration]); })
    .observe({ type: 'longtask', buffered: true });
})();`;

let app: FastifyInstance;
let url = '';
let browser: Browser;
let page: Page;

beforeAll(async () => {
  ensureWebBuild();
  app = await testApp({ webRoot: join(ROOT, 'dist', 'web') });
  sqliteOf(app.store).db.transaction(() => {
    for (let i = 0; i < RUNS; i++) {
      const at = T0 + i * 1_500_000;
      // SQLite's insertWhole runs synchronously inside this transaction; its promise is already settled.
      void app.store.runWrites.insertWhole(newRun(idOf(i), { source: 'import', status: 'finished', createdAtMs: at }), {
        verdict: i % 5 === 0 ? 'failed' : 'passed',
        startedAtMs: at,
        finishedAtMs: at + 60_000,
      });
    }
  })();
  await app.listen({ host: '127.0.0.1', port: 0 });
  const a = app.server.address();
  url = `http://127.0.0.1:${typeof a === 'object' && a ? a.port : 0}`;
  browser = await launchBrowser({ width: 1440, height: 900 });
  page = await browser.context.newPage();
  page.setDefaultTimeout(15_000);
  await page.addInitScript(LONG_TASKS);
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await app?.close();
});

const shown = () => page.getByTestId('pager-shown').textContent();
const rowIds = () =>
  page.locator('[data-testid=run-row]').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-run-id')));

describe('the Runs list at 20,000 runs (Chromium, 1440 px)', () => {
  it(
    'reaches the oldest run, a page by number and the newest again, without a long task',
    { timeout: 60_000 },
    async () => {
      await page.goto(`${url}/#/`);
      await expect.poll(shown).toBe('1–25 of 20,000');
      await expect.poll(async () => (await rowIds())[0]).toBe(idOf(RUNS - 1));
      // Long tasks from here on, once the live snapshot is in: the walk's, not the cold load's parse and first draws.
      await expect.poll(() => page.getByTestId('connection').getAttribute('data-state')).toBe('live');
      const from = await page.evaluate(() => performance.now());

      const pager = page.getByRole('navigation', { name: 'Pages' });
      await pager.getByRole('button', { name: 'Older →' }).click();
      await expect.poll(shown).toBe('26–50 of 20,000');
      await expect.poll(async () => (await rowIds())[0]).toBe(idOf(RUNS - 26));

      await pager.getByRole('button', { name: 'Oldest ⇥' }).click();
      await expect.poll(shown).toBe('19,976–20,000 of 20,000');
      await expect.poll(async () => (await rowIds()).at(-1)).toBe(idOf(0));
      await expect.poll(() => pager.getByRole('button', { name: 'Oldest ⇥' }).isDisabled()).toBe(true);
      await expect.poll(() => pager.getByRole('button', { name: 'Older →' }).isDisabled()).toBe(true);
      await page.mouse.wheel(0, 10_000);

      const field = pager.getByRole('spinbutton', { name: 'Page' });
      await expect.poll(() => field.inputValue()).toBe('800');
      await field.fill('400');
      await field.press('Enter');
      await expect.poll(shown).toBe('9,976–10,000 of 20,000');
      await expect.poll(async () => (await rowIds())[0]).toBe(idOf(RUNS - 9_976));

      await pager.getByRole('button', { name: '⇤ Newest' }).click();
      await expect.poll(shown).toBe('1–25 of 20,000');
      await expect.poll(async () => (await rowIds())[0]).toBe(idOf(RUNS - 1));
      await expect.poll(() => field.inputValue()).toBe('1');

      const tasks = await page.evaluate(() => (window as unknown as { __longTasks: [number, number][] }).__longTasks);
      const walk = tasks.filter(([start]) => start >= from).map(([, ms]) => Math.round(ms));
      expect(walk.filter((ms) => ms > LONG_TASK_MS)).toEqual([]);
    },
  );
});
