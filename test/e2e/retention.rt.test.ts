/**
 * Retention in Chromium, on the real dashboard: runs reported to it, then
 * `stallscope serve --retain-runs 1` on the same data: the older run's page
 * still shows its verdict, counts and stall evidence, and its timeline says
 * its rows were pruned; Pin on the newer run pins it (and Unpin undoes it).
 */
import { describe, expect } from 'vitest';
import { test as it } from '#test/helpers/browserFixtures.ts';
import { startServer, type RunningServer } from '#test/helpers/dashboardProcess.ts';
import { hangRunEvents } from '#test/helpers/sampleEvents.ts';

/** A reported run of the hang: its events from the CLI, its target's telemetry (the stall) through /api/ingest. */
async function report(url: string, id: string, startedAtMs: number): Promise<void> {
  const post = (path: string, body: string, type = 'application/json') =>
    fetch(url + path, { method: 'POST', headers: { 'content-type': type }, body });
  const all = hangRunEvents(id, startedAtMs);
  const cut = all.findIndex((e) => e.type === 'request.timed_out');
  const engine = (part: typeof all) => JSON.stringify({ events: part.filter((e) => e.type !== 'telemetry') });
  const telemetry = all.flatMap((e) => (e.type === 'telemetry' ? [JSON.stringify(e.event)] : [])).join('\n');
  expect((await post('/api/runs/external', JSON.stringify({ runId: id, label: id }))).status).toBe(201);
  expect((await post(`/api/runs/${id}/events`, engine(all.slice(0, cut)))).status).toBe(200);
  expect((await post(`/api/ingest?runId=${id}`, telemetry, 'application/x-ndjson')).status).toBe(200);
  expect((await post(`/api/runs/${id}/events`, engine(all.slice(cut)))).status).toBe(200);
}

describe('retention, in Chromium', () => {
  it('a pruned run shows its summary and says its timeline was pruned; Pin pins a run', async ({ page }) => {
    let server: RunningServer = await startServer();
    try {
      await report(server.url, 'older', 1_700_000_000_000);
      await report(server.url, 'newer', 1_700_000_100_000);
      await server.stop({ keepData: true });
      server = await startServer(server.dataDir, { args: ['--retain-runs', '1'] });
      const base = server.url;
      // The first sweep runs a second after start.
      await expect
        .poll(
          async () => ((await (await fetch(`${base}/api/runs/older`)).json()) as { prunedAtMs: unknown }).prunedAtMs,
          {
            timeout: 15_000,
          },
        )
        .toEqual(expect.any(Number));

      await page.goto(`${base}/#/runs/older`);
      const notice = page.getByTestId('timeline-pruned');
      await expect
        .poll(() => notice.textContent())
        .toMatch(/^This run's request rows and event stream were pruned by retention on \d{4}-\d\d-\d\d /);
      // What it keeps is on the page: the verdict, its reasons, the stall card.
      await expect.poll(() => page.getByTestId('verdict-reasons').textContent()).toContain('1 request timed out');
      const fingerprint = page.getByTestId('fingerprint').first();
      await expect.poll(() => fingerprint.getAttribute('data-fingerprint')).toMatch(/^[0-9a-f]{12}$/);
      await expect.poll(() => page.getByTestId('stack-frames').first().textContent()).toContain('blockForever');

      await page.goto(`${base}/#/runs/newer`);
      const pin = page.getByTestId('pin-run');
      await expect.poll(() => pin.textContent()).toBe('Pin');
      await expect.poll(() => page.getByTestId('timeline-pruned').count()).toBe(0);
      await pin.click();
      await expect.poll(() => pin.textContent()).toBe('Unpin');
      expect(((await (await fetch(`${base}/api/runs/newer`)).json()) as { pinned: boolean }).pinned).toBe(true);
      await pin.click();
      await expect.poll(() => pin.getAttribute('aria-pressed')).toBe('false');
      expect(((await (await fetch(`${base}/api/runs/newer`)).json()) as { pinned: boolean }).pinned).toBe(false);
    } finally {
      await server.stop();
    }
  }, 90_000);
});
