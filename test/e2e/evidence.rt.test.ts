/**
 * A bug report in one click, in Chromium, on a short run of the Code2Wav hang
 * preset: Download evidence gives one JSON whose story sentence is the one
 * the page shows, with the stall report and its fingerprint, the request
 * table and the trace; the CSV places each request in Code2Wav and leaves
 * blank what a request that never completed lacks; the stack's Copy names
 * the run, phase, op, age and requests; Open in Perfetto hands the trace to
 * ui.perfetto.dev by its postMessage protocol (answered here by a stand-in
 * page served for that origin, so the test runs offline).
 */
import { readFileSync } from 'node:fs';
import { describe, expect } from 'vitest';
import type { Page } from 'playwright-core';
import { CODE2WAV_HANG } from '#shared/config/presets.ts';
import { test as it } from '#test/helpers/browserFixtures.ts';

let runId = '';

/** Stands in for ui.perfetto.dev: answers PING with PONG, then shows what it was handed in its title. */
const FAKE_PERFETTO = `<!doctype html><title>waiting</title><script>
addEventListener('message', (e) => {
  if (e.data === 'PING') return e.source.postMessage('PONG', '*');
  const p = e.data && e.data.perfetto;
  if (!p) return;
  const trace = JSON.parse(new TextDecoder().decode(p.buffer));
  document.title = 'got ' + trace.traceEvents.length + ' events | ' + p.title + ' | ' + p.fileName + ' | ' + e.origin;
});
</script>`;

async function download(page: Page, testId: string): Promise<string> {
  const [d] = await Promise.all([page.waitForEvent('download'), page.getByTestId(testId).click()]);
  return readFileSync((await d.path())!, 'utf8');
}

describe('the evidence of a run, in Chromium', () => {
  it.beforeAll(async ({ dashboard: server, page }) => {
    await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: server.url });
    const spec = {
      ...CODE2WAV_HANG.spec,
      label: 'evidence',
      numPrompts: 40,
      timeouts: { totalS: 5 },
      target: { ...CODE2WAV_HANG.spec.target, watchdogTimeoutS: 1.5 },
    };
    const res = await fetch(`${server.url}/api/runs`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(spec),
    });
    runId = ((await res.json()) as { id: string }).id;
    for (let i = 0; ; i++) {
      const run = (await (await fetch(`${server.url}/api/runs/${runId}`)).json()) as { status: string };
      if (run.status !== 'running') break;
      if (i > 300) throw new Error('the run did not end within 30 s');
      await new Promise((r) => setTimeout(r, 100));
    }
    await page.goto(`${server.url}/#/runs/${runId}`);
    await page.locator('[data-testid="run-page"][data-loaded="true"]').waitFor({ timeout: 20_000 });
  }, 90_000);

  it('Download evidence: one JSON with the page’s own story, the stall with its fingerprint, the table and the trace', async ({
    page,
  }) => {
    const ev = JSON.parse(await download(page, 'export-evidence'));
    expect(ev).toMatchObject({ format: 'stallscope-evidence', run: { id: runId, status: 'finished' } });
    expect(ev.verdict.verdict).toBe('failed_closed');
    const pageStory = (await page.getByTestId('run-story').textContent())!;
    expect(pageStory).toMatch(/^Code2Wav op \d+ stalled in hift/);
    expect(ev.story).toBe(pageStory);
    const stall = ev.stalls.find((s: { source: string }) => s.source === 'watchdog');
    expect(stall).toMatchObject({ phase: 'hift', fingerprint: expect.stringMatching(/^[0-9a-f]{12}$/) });
    expect(stall.requests.length).toBeGreaterThan(0);
    expect(ev.requests.rows).toHaveLength(40);
    expect(ev.config).toMatchObject({ numPrompts: 40 });
    expect(ev.trace.traceEvents.length).toBeGreaterThan(40);
    expect(ev.vllmResult).toMatchObject({ num_prompts: 40 });
  });

  it('the CSV: worker, op, phase, in the stalled op; blank latencies for requests that never completed', async ({
    page,
  }) => {
    const [head, ...lines] = (await download(page, 'export-csv')).trim().split('\r\n');
    const cols = head.split(',');
    const rows = lines.map((l) => l.split(','));
    const at = (r: string[], c: string) => r[cols.indexOf(c)];
    const inOp = rows.filter((r) => at(r, 'in_stalled_op') === 'true');
    expect(inOp.length).toBeGreaterThan(0);
    for (const r of inOp) expect([at(r, 'worker'), at(r, 'phase')]).toEqual(['0', 'hift']);
    const neverCompleted = rows.filter((r) => at(r, 'status') !== 'completed');
    expect(neverCompleted.length).toBeGreaterThan(0);
    for (const r of neverCompleted) expect([at(r, 'e2el_s'), at(r, 'audio_duration_s')]).toEqual(['', '']);
  });

  it('the stack’s Copy names the run, its dashboard link, phase, op, age and requests', async ({
    page,
    dashboard: server,
  }) => {
    const card = page.getByTestId('stall-report').first();
    const age = Number(await card.getByTestId('stall-age').getAttribute('data-age-s'));
    await card.getByTestId('copy-stack').click();
    const text = await page.evaluate(() => navigator.clipboard.readText());
    // The run's line, its dashboard link (a local run has no "Where:" line), then the op's requests and fingerprint.
    const [first, dashboardLink, requests, fingerprint] = text.split('\n');
    expect(dashboardLink).toBe(`Dashboard: ${server.url}/#/runs/${runId}`);
    const line = new RegExp(
      `^Run ${runId}: Code2Wav stall, worker 0, op \\d+, phase hift, (\\d+\\.\\d) s in hift \\(blocked when the run ended\\)$`,
    );
    expect(first).toMatch(line);
    // The card's age, to the tenth the Copy writes (4.65 may round either way: the format's rounding, not toFixed's).
    expect(Math.abs(Number(line.exec(first)![1]) - age)).toBeLessThanOrEqual(0.051);
    expect(requests).toMatch(new RegExp(`^Requests in the op: #\\d+ ${runId}-\\d+(, #\\d+ ${runId}-\\d+)*$`));
    expect(fingerprint).toMatch(/^Fingerprint: [0-9a-f]{12} \(hift\//);
    expect(text).toMatch(/\n {2}at \S+ \(.*:\d+:\d+\)/);
  });

  it('Open in Perfetto hands the trace to ui.perfetto.dev by postMessage', async ({ page, dashboard: server }) => {
    await page
      .context()
      .route('https://ui.perfetto.dev/**', (route) =>
        route.fulfill({ status: 200, contentType: 'text/html', body: FAKE_PERFETTO }),
      );
    const trace = JSON.parse(await download(page, 'export-trace')) as { traceEvents: unknown[] };
    await expect
      .poll(() => page.locator('#perfetto-how').textContent())
      .toMatch(/opens ui\.perfetto\.dev in a new tab and hands it/);
    const [tab] = await Promise.all([page.waitForEvent('popup'), page.getByTestId('open-perfetto').click()]);
    expect(tab.url()).toBe('https://ui.perfetto.dev/');
    await expect
      .poll(() => tab.title(), { timeout: 15_000 })
      .toBe(
        `got ${trace.traceEvents.length} events | stallscope run ${runId} | stallscope-${runId}.trace.json | ${server.url}`,
      );
    await expect.poll(() => page.getByTestId('open-perfetto-error').count()).toBe(0);
    await tab.close();
  });
});
