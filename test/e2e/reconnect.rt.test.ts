/**
 * The live connection in a real browser across a dashboard restart: the
 * page notices the socket is gone, retries with backoff, comes back live
 * against the restarted server (same port, same data), shows the run the
 * restart interrupted as interrupted, and keeps streaming new runs over the
 * new socket, all without a page reload.
 */
import { describe, expect } from 'vitest';
import type { RunEvent } from '#shared/protocol/protocol.ts';
import { completedRequest } from '#test/helpers/sampleEvents.ts';
import { screenshotPath } from '#test/helpers/browser.ts';
import { test as it, type Dashboard } from '#test/helpers/browserFixtures.ts';

/** A run reported as `stallscope bench --report-to` reports it, with its first `requests` requests completed. */
async function reportRun(dashboard: Dashboard, runId: string, requests: number): Promise<void> {
  const config = {
    model: 'openbmb/MiniCPM-o-4_5',
    baseUrl: 'http://10.0.0.5:8000',
    numPrompts: 8,
    maxConcurrency: 2,
    requestRate: 'inf',
    failFast: true,
    dataset: { name: 'random' },
  };
  await dashboard.postJson('/api/runs/external', { runId, config });
  const started: RunEvent = {
    type: 'run.started',
    t: 0,
    runId,
    startedAtMs: Date.now(),
    numRequests: 8,
    maxConcurrency: 2,
    requestRate: 'inf',
    failFast: true,
    model: 'm',
    baseUrl: 'http://10.0.0.5:8000',
  };
  await dashboard.postJson(`/api/runs/${runId}/events`, {
    events: [started, ...Array.from({ length: requests }, (_, i) => completedRequest(runId, i, 10 * i)).flat()],
  });
}

async function moreRequests(dashboard: Dashboard, runId: string, from: number, to: number): Promise<void> {
  await dashboard.postJson(`/api/runs/${runId}/events`, {
    events: Array.from({ length: to - from }, (_, k) => completedRequest(runId, from + k, 10 * (from + k))).flat(),
  });
}

describe('dashboard restart in Chromium', () => {
  // The dashboard (and the web build it serves) starts within this hook's minute, not in the test.
  it.beforeAll(async ({ dashboard }) => {
    await dashboard.api('/api/health');
  }, 60_000);

  it('reconnects after a restart, shows the interrupted run, and streams a new one over the new socket', async ({
    page,
    dashboard,
  }) => {
    const connection = () => page.getByTestId('connection').getAttribute('data-state');
    const completedRows = () => page.locator('[data-testid="timeline-row"][data-status="completed"]').count();
    await reportRun(dashboard, 'ci-before', 2);
    await page.goto(`${dashboard.url}/#/runs/ci-before`);
    await expect.poll(connection).toBe('live');
    await expect.poll(completedRows).toBe(2);
    await moreRequests(dashboard, 'ci-before', 2, 3); // live over the first socket
    await expect.poll(completedRows).toBe(3);

    // A mark on the page's window: still there at the end means the page was never reloaded.
    await page.evaluate(() => {
      (window as unknown as { stallscopeMark: number }).stallscopeMark = 1;
    });
    await dashboard.stop(); // the dashboard records the reported run as interrupted on its way down
    await expect.poll(connection).not.toBe('live');
    await page.screenshot({ path: screenshotPath('restart-disconnected') });

    await dashboard.restart(); // same port, same data
    await expect.poll(connection, { timeout: 15_000 }).toBe('live');
    await expect
      .poll(() => page.getByTestId('run-page').getByTestId('verdict-badge').getAttribute('data-verdict'))
      .toBe('interrupted');
    await expect.poll(completedRows).toBe(3); // nothing lost or duplicated by the resubscribe

    // A run reported to the restarted server streams into the same page (no reload) over the new socket.
    await reportRun(dashboard, 'ci-after', 1);
    await page.evaluate(() => {
      window.location.hash = '#/runs/ci-after';
    });
    await expect.poll(completedRows).toBe(1);
    await moreRequests(dashboard, 'ci-after', 1, 4);
    await expect.poll(completedRows).toBe(4);
    await expect
      .poll(() => page.evaluate(() => (window as unknown as { stallscopeMark?: number }).stallscopeMark))
      .toBe(1);
    await page.screenshot({ path: screenshotPath('restart-reconnected') });
  }, 60_000);
});
