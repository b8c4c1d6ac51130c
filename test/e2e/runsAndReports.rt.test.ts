/**
 * The runs list, imports, reported runs and Compare at 2 a.m., in Chromium:
 * an import's notice agrees with its badge and ticks no Compare box, its page
 * never flashes "No requests yet" while its rows load and names its file
 * rather than "target unknown"; a CI log's link to a reported run opened
 * before the run exists shows the run when it is created, "rate ?" never
 * appears before its config, and a one-process capture reads "1 process"; a
 * metadata filter that matches nothing says so; Compare writes 1,088 and
 * lists its legend in the columns' order; the list's times carry a date and
 * zone. One server and one browser.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import type { RunEvent } from '#shared/protocol/protocol.ts';
import type { RunCounts } from '#shared/types.ts';
import { runStarted } from '#test/helpers/sampleEvents.ts';
import { openPage, screenshotPath, type Browser } from '#test/helpers/browser.ts';
import { startServer, type RunningServer } from '#test/helpers/dashboardProcess.ts';

let server: RunningServer;
let browser: Browser;
let page: Page;

const fixture = (name: string) => readFileSync(new URL(`../fixtures/vllm-results/${name}`, import.meta.url), 'utf8');
/** One run of a JSON-lines result file with per-request arrays (and no verdict), as a file of its own. */
const detailedRun = JSON.parse(fixture('detailed-append-jsonl-itls.json').trim().split('\n')[0]) as Record<
  string,
  unknown
>;

async function post(path: string, body: unknown): Promise<Response> {
  const res = await fetch(server.url + path, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  if (!res.ok) throw new Error(`${path}: ${res.status} ${await res.text()}`);
  return res;
}
const events = (id: string, evs: unknown[]) => post(`/api/runs/${id}/events`, { events: evs });

/** A reported run that ends with these counts (its requests counted, not streamed one by one). */
async function finishedReport(id: string, label: string, counts: RunCounts): Promise<void> {
  await post('/api/runs/external', { runId: id, label, config: { numPrompts: counts.total, requestRate: 'inf' } });
  const finished: RunEvent = {
    type: 'run.finished',
    t: 5000,
    summary: {
      verdict: 'failed_closed',
      verdictReasons: [],
      counts,
      durationS: 5,
      breakerTripped: true,
      cause: null,
      metrics: { completed: counts.completed, failed: counts.failed },
    },
  };
  await events(id, [runStarted(id, counts.total), finished]);
}

/** Every text the page shows from now on, even for a frame, is kept in window.__seen. */
const RECORD_TEXTS = `
  window.__seen = '';
  new MutationObserver(() => { window.__seen += '\\n' + (document.body?.innerText ?? ''); })
    .observe(document, { subtree: true, childList: true, characterData: true });
  undefined;
`;

describe('runs, imports and reported runs (Chromium)', () => {
  beforeAll(async () => {
    ({ browser, page } = await openPage());
    server = await startServer();
    await page.setViewportSize({ width: 1440, height: 900 });
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  // Caught: "Without … a verdict" beside a passed/failed badge, and each single-file import ticking its own box.
  it('imports single files: the notice says the verdict was derived, and no Compare box is ticked', async () => {
    await page.goto(`${server.url}/#/`);
    const file = page.getByTestId('import-file');
    for (let i = 1; i <= 4; i++) {
      await file.setInputFiles({
        name: `nightly-${i}.json`,
        mimeType: 'application/json',
        buffer: Buffer.from(JSON.stringify({ ...detailedRun, label: `nightly-${i}` })),
      });
      await expect.poll(() => page.getByTestId('notice').textContent()).toMatch(new RegExp(`nightly-${i}\\.`));
    }
    const notice = (await page.getByTestId('notice').textContent())!;
    expect(notice).not.toMatch(/verdict\.|a verdict/);
    expect(notice).toMatch(/Verdict derived from the counts \(the file gives none\)\./);
    await expect.poll(() => page.getByTestId('run-row').count()).toBe(4);
    const badges = await page.locator('[data-testid="run-row"] [data-testid="verdict-badge"]').allTextContents();
    expect(badges.every((b) => /passed|failed/.test(b))).toBe(true);
    await expect.poll(() => page.locator('[data-testid="run-row"] input[type="checkbox"]:checked').count()).toBe(0);
    await expect.poll(() => page.getByTestId('compare-selected').textContent()).toBe('Compare (select 2+)');
    // Caught: "12/1/2026, 9:14:51 PM" with no zone.
    const started = await page.locator('[data-testid="run-row"]').first().locator('td').nth(3).textContent();
    expect(started).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} \S+$/);
  });

  // Caught: "0 rows — No requests yet" while the stored rows load, and "target unknown" in the header.
  it('opens an import without ever saying it has no requests, and names its file as the target', async () => {
    // The list is by when runs happened (an import by its file's date): find the import by its file's name.
    const id = await page
      .locator('[data-testid="run-row"]', { hasText: 'nightly-4.json' })
      .first()
      .getAttribute('data-run-id');
    // Recorded from the runs page on: the run page opens in the same document (a hash route).
    await page.evaluate(RECORD_TEXTS);
    await page.goto(`${server.url}/#/runs/${id}`);
    await expect.poll(() => page.getByTestId('timeline').getAttribute('data-rows')).toBe('5');
    const seen = await page.evaluate(() => (window as unknown as { __seen: string }).__seen);
    expect(seen).toContain('Requests');
    expect(seen).not.toMatch(/No requests yet|\b0 rows\b/);
    await expect.poll(() => page.getByTestId('run-target').textContent()).toBe('imported from nightly-4.json');
    await expect.poll(() => page.locator('.run-head').textContent()).not.toMatch(/target unknown|rate \?/);
  });

  // Caught: "No run with id ci-late." for good, until a reload, when the CI link was clicked before the CLI started.
  it('shows a reported run opened before it existed as soon as it is created, and says what it waits for', async () => {
    const fresh = await browser.context.newPage();
    try {
      await fresh.goto(`${server.url}/#/runs/ci-late`);
      await expect
        .poll(() => fresh.getByTestId('run-missing').textContent())
        .toMatch(/^No run with id ci-late yet: this page shows it as soon as it is created/);
      await post('/api/runs/external', { runId: 'ci-late', label: 'ci-late' });
      await fresh.getByTestId('run-page').waitFor({ timeout: 8000 });
      // Created without a config: no "rate ?", no "target unknown", no elapsed 0.0 s and empty counters.
      await expect.poll(() => fresh.getByTestId('run-target').textContent()).toBe('target not reported yet');
      await expect.poll(() => fresh.getByTestId('run-load').count()).toBe(0);
      await expect
        .poll(() => fresh.getByTestId('run-starting').textContent())
        .toMatch(/waiting for the reporting CLI to start/);
      await expect.poll(() => fresh.getByTestId('counters').count()).toBe(0);
      await expect.poll(() => fresh.locator('.run-head').textContent()).not.toMatch(/\?/);
      // Its run.started says what the config would have.
      await events('ci-late', [runStarted('ci-late', 4, Date.now())]);
      await expect.poll(() => fresh.getByTestId('run-load').textContent()).toBe('concurrency 2 · rate inf');
      await expect.poll(() => fresh.getByTestId('run-target').textContent()).toBe('http://127.0.0.1:9');
      await expect.poll(() => fresh.getByTestId('elapsed').count()).toBe(1);
      await expect.poll(() => fresh.getByTestId('run-starting').count()).toBe(0);
      await fresh.screenshot({ path: screenshotPath('reported-run-appears') });
    } finally {
      await fresh.close();
    }
  });

  // Caught: "1 processes, 1 threads".
  it('says "1 process, 1 thread" for a capture of one process', async () => {
    const report = {
      source: 'py-spy',
      capture: 1,
      reason: { kind: 'first_timeout', requestIndex: 0, requestId: 'ci-late-0', timeoutKind: 'total', elapsedS: 3 },
      rootPid: 4242,
      native: false,
      capturedAtMs: Date.now(),
      durationMs: 1250,
      phase: 'unknown',
      inferred: null,
      requestIds: [],
      processes: [
        {
          pid: 4242,
          ppid: null,
          cmdline: 'python -m vllm_omni.serve',
          threads: [
            {
              name: 'MainThread',
              tid: 4242,
              active: true,
              ownsGil: true,
              frames: [
                {
                  function: 'wait',
                  file: '/usr/lib/python3.11/threading.py',
                  line: 327,
                  column: 0,
                  language: 'python',
                },
              ],
            },
          ],
        },
      ],
      stack: [],
      notes: [],
    };
    await events('ci-late', [{ type: 'server.stacks', t: 3000, report }]);
    await page.goto(`${server.url}/#/runs/ci-late`);
    const card = page.getByTestId('server-stacks');
    await card.waitFor();
    await expect
      .poll(() => card.getByTestId('inferred-from').textContent())
      .toMatch(/1 process, 1 thread, read in 1,250 ms\./);
  });

  // Caught: a metadata word without "=" dropped, so every run was listed as if it matched.
  it('says a metadata filter that is not key=value matched nothing', async () => {
    await page.goto(`${server.url}/#/?meta=mi300-7`);
    await expect
      .poll(() => page.getByTestId('no-match').textContent())
      .toBe('No run matches metadata “mi300-7”: write key=value, e.g. ci_node=mi325-agent-2.');
    await expect.poll(() => page.getByTestId('run-row').count()).toBe(0);
    await page.goto(`${server.url}/#/?meta=node%3Dmi300-7`);
    // A non-ci_* key that matched nothing: the hint names the keys CI runs carry.
    await expect
      .poll(() => page.getByTestId('no-match').textContent())
      .toBe(
        'No run matches metadata node=mi300-7. CI runs are filtered by ci_build, ci_node, ci_commit, ci_pipeline, ' +
          'ci_step (e.g. ci_node=mi325-agent-2).',
      );
  });

  // Caught: "1088" in Compare, and a legend sorted by name (alpha before zeta) under columns zeta, alpha.
  it('writes Compare’s counts with separators and its legend in the columns’ order', async () => {
    const counts = (completed: number): RunCounts => ({
      total: 1088,
      completed,
      failed: 1088 - completed,
      timedOut: 5,
      cancelledAfterTimeout: 1083 - completed,
      cancelled: 0,
      errored: 0,
      unsent: 1078 - completed,
    });
    await finishedReport('ci-zeta', 'zeta-nightly', counts(0));
    await finishedReport('ci-alpha', 'alpha-nightly', counts(0));
    await page.goto(`${server.url}/#/compare?ids=ci-zeta,ci-alpha`);
    const summary = page.locator('table.compare-summary');
    await summary.waitFor();
    const heads = await summary.locator('thead th a').allTextContents();
    expect(heads).toEqual(['zeta-nightly', 'alpha-nightly']);
    const requests = summary.locator('tr', { has: page.locator('th', { hasText: /^requests$/ }) }).locator('td');
    await expect.poll(() => requests.allTextContents()).toEqual(['1,088', '1,088']);
    // Every count written with separators (the rows of when and where a run happened hold dates and build numbers).
    const cells = await summary
      .locator('tr')
      .filter({ hasNot: page.locator('th', { hasText: /^(happened|where|server)$/ }) })
      .locator('td')
      .allTextContents();
    expect(cells.filter((c) => /\d{4}/.test(c))).toEqual([]);
    const legend = page.getByTestId('stall-phase-chart').locator('.recharts-legend-item-text');
    await expect.poll(() => legend.allTextContents()).toEqual(['zeta-nightly', 'alpha-nightly']);
    await page.screenshot({ path: screenshotPath('compare-night') });
  });
});
