/**
 * The run page tells one consistent story, in Chromium against the
 * real server and its embedded repro server: the hang preset with short timeouts
 * (the Code2Wav worker blocks in hift at op 3, the breaker trips), a clean
 * concurrency-4 run with a threshold, a detailed vLLM import, and a run
 * cancelled from the dashboard. One server and one browser for the file.
 */
import { readFileSync } from 'node:fs';
import { describe, expect } from 'vitest';
import type { Page } from 'playwright-core';
import { screenshotPath } from '#test/helpers/browser.ts';
import { test as it, type Dashboard } from '#test/helpers/browserFixtures.ts';

const DETAILED = new URL('../fixtures/vllm-results/detailed-append-jsonl-itls.json', import.meta.url);

type Spec = Record<string, unknown> & { target: Record<string, unknown> };
interface RunJson {
  id: string;
  status: string;
  verdict: string | null;
  counts: Record<string, number>;
  breaker: { tripped: boolean; cause: { requestIndex: number } | null };
  summary: { metrics: Record<string, unknown>; verdictReasons: string[] } | null;
}

async function hangSpec(dashboard: Dashboard): Promise<Spec> {
  const presets = await dashboard.api<{ presets: { id: string; spec: Spec }[] }>('/api/presets');
  return presets.presets.find((p) => p.id === 'code2wav-hang')!.spec;
}

async function startRun(dashboard: Dashboard, spec: Spec): Promise<string> {
  const { id } = await dashboard.api<{ id: string }>('/api/runs', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(spec),
  });
  return id;
}

async function finished(dashboard: Dashboard, id: string, timeout = 30_000): Promise<RunJson> {
  // A plain loop (it also runs in beforeAll, where expect.poll is not allowed).
  const deadline = Date.now() + timeout;
  for (;;) {
    const run = await dashboard.api<RunJson>(`/api/runs/${id}`);
    if (run.status !== 'running' && run.summary) return run;
    if (Date.now() > deadline) throw new Error(`run ${id} still ${run.status} after ${timeout} ms`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

const int = (s: string | null) => Number((s ?? '').replace(/[^\d]/g, ''));

/** The value the metrics table shows for a row label. */
async function tableValue(page: Page, label: string): Promise<number> {
  const row = page.getByTestId('metrics-table').locator('tr', { has: page.locator('th', { hasText: label }) });
  return int(await row.first().locator('td').first().textContent());
}

async function openRun(page: Page, dashboard: Dashboard, id: string): Promise<void> {
  await page.goto(`${dashboard.url}/#/runs/${id}`);
  await page.getByTestId('run-page').waitFor();
  await expect.poll(() => page.getByTestId('run-page').getAttribute('data-loaded')).toBe('true');
}

let hangId = '';
let hang: RunJson;

describe('the run page tells one story', () => {
  it.beforeAll(async ({ dashboard }) => {
    // The hang preset, shortened: 60 requests, 5 s timeout, watchdog 1.5 s (a first decode on a loaded
    // machine can take ~1 s: a shorter watchdog reports it too, as a stall that recovers).
    const spec = await hangSpec(dashboard);
    hangId = await startRun(dashboard, {
      ...spec,
      label: 'hang-short',
      numPrompts: 60,
      timeouts: { totalS: 5 },
      target: { ...spec.target, watchdogTimeoutS: 1.5 },
    });
    hang = await finished(dashboard, hangId);
  }, 90_000);

  it('1. cards: failed is the table’s Failed requests, with its parts inside; an import fills the cards', async ({
    page,
    dashboard,
  }) => {
    expect(hang.verdict).toBe('failed_closed');
    await openRun(page, dashboard, hangId);
    await page.getByTestId('metrics-table').waitFor();
    const failed = page.getByTestId('count-failed');
    const failedN = int(await failed.locator('dd').textContent());
    expect(failedN).toBe(60);
    expect(failedN).toBe(await tableValue(page, 'Failed requests'));
    expect(int(await page.getByTestId('count-completed').locator('dd').textContent())).toBe(
      await tableValue(page, 'Successful requests'),
    );
    // The parts sit inside the failed card, named in one vocabulary, and add up to it (unsent is a subset).
    const timedOut = int(await failed.getByTestId('count-timed_out').locator('b').textContent());
    const afterTimeout = int(await failed.getByTestId('count-cancelled_after_timeout').locator('b').textContent());
    expect(timedOut).toBe(hang.counts.timedOut);
    expect(timedOut + afterTimeout).toBe(failedN);
    await expect.poll(() => failed.getByTestId('count-not_dispatched').textContent()).toMatch(/^\d+ unsent$/);
    await expect.poll(() => failed.getByTestId('count-errored').count()).toBe(0);
    await page.screenshot({ path: screenshotPath('story-hang'), fullPage: true });
    // The runs list says the same, in the same words.
    await page.goto(`${dashboard.url}/#/`);
    const listed = page.locator(`[data-testid="run-row"][data-run-id="${hangId}"]`);
    await expect
      .poll(() => listed.getByTestId('run-row-parts').textContent())
      .toBe(`${timedOut} timed out, ${afterTimeout} cancelled after timeout, ${hang.counts.unsent} unsent · of 60`);

    // A detailed vLLM result (5 completed): the cards show the file's counts, not an empty live model's.
    const imported = await dashboard.api<{ runs: { id: string }[] }>('/api/import', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: readFileSync(DETAILED, 'utf8').split('\n')[0],
    });
    expect(imported.runs).toHaveLength(1);
    await openRun(page, dashboard, imported.runs[0].id);
    await expect.poll(() => page.getByTestId('timeline').getAttribute('data-rows')).toBe('5');
    await expect.poll(() => page.getByTestId('count-completed').locator('dd').textContent()).toBe('5');
    await expect.poll(() => page.getByTestId('count-failed').locator('dd').textContent()).toBe('0');
    await expect.poll(() => page.getByTestId('count-failed').getAttribute('class')).toContain('zero');
  });

  it('2. concurrency: the chart plots the exact sweep; both figures and the one-second-bucket line; the hang is not 0', async ({
    page,
    dashboard,
  }) => {
    await openRun(page, dashboard, hangId);
    const figs = page.getByTestId('concurrency-figures');
    await page.getByTestId('concurrency-chart').scrollIntoViewIfNeeded();
    // Ten requests held a slot until the trip: exactly 10, although none completed (vLLM's figure is 0).
    expect(hang.summary!.metrics.max_concurrent_requests_exact).toBe(10);
    await expect.poll(() => figs.getAttribute('data-exact')).toBe('10');
    await expect.poll(() => figs.getAttribute('data-vllm')).toBe('0');
    await expect.poll(() => page.getByTestId('concurrency-chart').getAttribute('data-plotted-peak')).toBe('10');
    await expect.poll(() => page.getByTestId('concurrency-note').textContent()).toMatch(/one-second bucket/);
    expect(await tableValue(page, 'Peak concurrent requests (exact)')).toBe(10);

    // A clean concurrency-4 run: the plotted peak is the exact one, never above the limit.
    const spec = await hangSpec(dashboard);
    const id = await startRun(dashboard, {
      ...spec,
      label: 'clean-c4',
      numPrompts: 12,
      maxConcurrency: 4,
      failFast: true,
      timeouts: { totalS: 60 },
      thresholds: ['mean_ttft_ms<=100000'],
      target: { ...spec.target, faults: [] },
    });
    const clean = await finished(dashboard, id, 40_000);
    expect(clean.verdict).toBe('passed');
    await openRun(page, dashboard, id);
    // The charts draw once scrolled to.
    await page.getByTestId('concurrency-chart').scrollIntoViewIfNeeded();
    expect(clean.summary!.metrics.max_concurrent_requests_exact).toBe(4);
    await expect.poll(() => page.getByTestId('concurrency-figures').getAttribute('data-exact')).toBe('4');
    await expect.poll(() => page.getByTestId('concurrency-chart').getAttribute('data-plotted-peak')).toBe('4');
    await expect
      .poll(() => page.getByTestId('concurrency-figures').getAttribute('data-vllm'))
      .toBe(String(clean.summary!.metrics.max_concurrent_requests));
  }, 60_000);

  it('3. a timed-out request shows the time it ran and how it ended, not "E2E latency 0 ms"', async ({
    page,
    dashboard,
  }) => {
    const cause = hang.breaker.cause!.requestIndex;
    await page.goto(`${dashboard.url}/#/runs/${hangId}?request=${cause}`);
    await page.reload();
    const detail = page.getByTestId('request-detail');
    await detail.waitFor();
    await expect
      .poll(() => detail.getByTestId('request-ending').textContent())
      .toMatch(/^ran 5\.\d\d s, then timed out \(total timeout\)$/);
    await expect
      .poll(() => detail.getByTestId('request-e2el').textContent())
      .toBe('none: the request did not complete');
    await expect.poll(() => detail.textContent()).not.toMatch(/E2E latency0(\.0)? ms/);
  });

  it('4. time queued behind the stalled op is its own segment, not audio', async ({ page, dashboard }) => {
    await openRun(page, dashboard, hangId);
    // Requests whose audio had started before op 3 hung: their wait is drawn as "waiting", hatched.
    const blocked = page.locator('[data-testid="seg-blocked"][title="waiting: queued behind op 3, hift, stalled"]');
    const row = page.locator('[data-testid="timeline-row"]', { has: blocked }).first();
    await row.waitFor();
    const seg = row.getByTestId('seg-blocked');
    // The wait (from op 3's begin to the timeout) is longer than the audio that really streamed before it.
    const blockedW = (await seg.boundingBox())!.width;
    const audio = row.locator('.seg-audio');
    const audioW = (await audio.count()) ? (await audio.first().boundingBox())!.width : 0;
    expect(blockedW).toBeGreaterThan(audioW);
    const bg = await seg.evaluate((el) => getComputedStyle(el).backgroundImage);
    expect(bg).toMatch(/repeating-linear-gradient/);
    // The tooltip says the same.
    await seg.scrollIntoViewIfNeeded();
    const box = (await seg.boundingBox())!;
    await page.mouse.move(box.x + box.width / 2, box.y + 3);
    await expect
      .poll(() => page.locator('[role="tooltip"]').textContent())
      .toContain('queued behind op 3, hift, stalled');
  });

  it('5. the header links the tripping request; one sentence tells the stall, the timeout and the cancel', async ({
    page,
    dashboard,
  }) => {
    await openRun(page, dashboard, hangId);
    const cause = hang.breaker.cause!.requestIndex;
    const link = page.getByTestId('breaker-request');
    await expect.poll(() => link.textContent()).toBe(`#${cause}`);
    await link.click();
    await expect
      .poll(() => page.getByTestId('request-detail').locator('h2').textContent())
      .toContain(`Request #${cause}`);

    const story = page.getByTestId('run-story');
    const text = (await story.textContent())!;
    expect(text).toMatch(
      new RegExp(
        // (A slow first decode on a loaded machine may come first, as a stall that recovered.)
        '^(.*; )?Code2Wav op 3 stalled in hift at \\d+\\.\\d\\d s \\(worker 0\\); requests? [#\\d–, ]+ (were|was) in it; ' +
          `requests? [#\\d–, ]+ waited behind it; #${cause} hit its total timeout after 5\\.\\d\\d s, at \\d+\\.\\d\\d s; ` +
          `.*the breaker cancelled ${hang.counts.cancelledAfterTimeout} requests \\(${hang.counts.unsent} unsent\\)\\.$`,
      ),
    );
    // The stalled requests and the timed-out ones are links; following one opens it and highlights its group.
    const links = story.getByTestId('story-link');
    await expect.poll(() => links.count()).toBeGreaterThanOrEqual(3);
    const waited = story.locator('span', { hasText: 'waited behind it' }).getByTestId('story-link').first();
    const ids = (await waited.getAttribute('data-requests'))!.split(',').map(Number);
    await waited.click();
    await expect
      .poll(() => page.getByTestId('request-detail').locator('h2').textContent())
      .toContain(`Request #${ids[0]}`);
    await expect
      .poll(() => page.locator('.tl-row.highlighted').count())
      .toBeGreaterThanOrEqual(Math.min(ids.length, 2));
  });

  it('6. a finished run says "blocked when the run ended" and, never tripped, "breaker: not tripped"', async ({
    page,
    dashboard,
  }) => {
    await openRun(page, dashboard, hangId);
    // The op that never finished (a slow first decode may also be listed, as recovered).
    await expect.poll(() => page.getByTestId('stall-state').allTextContents()).toContain('blocked when the run ended');
    await expect.poll(() => page.getByTestId('stall-state').allTextContents()).not.toContain('still blocked');
    expect((await page.getByTestId('stall-age').allTextContents()).join()).not.toContain('counting');
    const clean = (await dashboard.api<{ runs: { id: string; label: string }[] }>('/api/runs')).runs.find(
      (r) => r.label === 'clean-c4',
    )!;
    await openRun(page, dashboard, clean.id);
    await expect.poll(() => page.getByTestId('breaker').getAttribute('data-state')).toBe('not_tripped');
    await expect.poll(() => page.getByTestId('breaker').textContent()).toBe('breaker: not tripped');
  });

  it('7. Cancel asks first, records interrupt_cause dashboard, and counts the aborted requests as cancelled', async ({
    page,
    dashboard,
  }) => {
    const spec = await hangSpec(dashboard);
    const id = await startRun(dashboard, {
      ...spec,
      label: 'to-cancel',
      failFast: false,
      timeouts: { totalS: 60 },
      target: { ...spec.target, faults: [] },
    });
    await openRun(page, dashboard, id);
    await page.locator('[data-testid="timeline-row"][data-status="streaming"]').first().waitFor({ timeout: 20_000 });
    // The first click only asks; "Keep running" leaves the run alone.
    await page.getByTestId('cancel-run').click();
    await page.getByTestId('confirm-cancel').waitFor();
    await page.waitForTimeout(300);
    expect((await dashboard.api<RunJson>(`/api/runs/${id}`)).status).toBe('running');
    await page.getByTestId('keep-running').click();
    await expect.poll(() => page.getByTestId('confirm-cancel').count()).toBe(0);
    expect((await dashboard.api<RunJson>(`/api/runs/${id}`)).status).toBe('running');

    await page.getByTestId('cancel-run').click();
    await page.getByTestId('confirm-cancel').click();
    await expect
      .poll(() => page.getByTestId('run-page').getByTestId('verdict-badge').getAttribute('data-verdict'), {
        timeout: 20_000,
      })
      .toBe('interrupted');
    const run = await finished(dashboard, id);
    expect(run.summary!.metrics.interrupt_cause).toBe('dashboard');
    await expect.poll(() => page.getByTestId('interrupt-cause').textContent()).toBe('cancelled from the dashboard');
    // Said once: the badge, no "interrupted interrupted".
    await expect.poll(() => page.getByTestId('run-status').textContent()).toBe('');
    await expect.poll(() => page.locator('.run-title').textContent()).not.toMatch(/interrupted\s*interrupted/);
    // The aborted requests are inside failed, under cancelled; none are errors.
    await expect.poll(() => page.getByTestId('count-failed').getByTestId('count-cancelled').count()).toBe(1);
    const cancelled = int(await page.getByTestId('count-cancelled').locator('b').textContent());
    expect(cancelled).toBe(run.counts.cancelled);
    expect(cancelled).toBeGreaterThan(0);
    await expect.poll(() => page.getByTestId('count-errored').count()).toBe(0);
    const reasons = await page.getByTestId('verdict-reasons').locator('li').allTextContents();
    expect(reasons[0]).toBe('the run was cancelled from the dashboard; in-flight requests were aborted');
    expect(reasons.join('\n')).not.toMatch(/requests? failed/);
    await expect
      .poll(() => page.getByTestId('run-story').textContent())
      .toMatch(/^The run was cancelled from the dashboard: \d+ requests? aborted in flight, [\d,]+ unsent\.$/);
    await page.screenshot({ path: screenshotPath('story-cancelled'), fullPage: false });
  }, 45_000);

  it('8. the verdict box is styled by verdict; threshold values at the metric precision', async ({
    page,
    dashboard,
  }) => {
    const clean = (await dashboard.api<{ runs: { id: string; label: string }[] }>('/api/runs')).runs.find(
      (r) => r.label === 'clean-c4',
    )!;
    await openRun(page, dashboard, clean.id);
    const box = page.getByTestId('verdict-reasons');
    await box.waitFor();
    const passedColor = await box.evaluate((el) => getComputedStyle(el).borderLeftColor);
    // The passed outcome's colour, whatever value the theme gives it (tuned for contrast in app.css).
    const outcomeColor = (name: string) =>
      page.evaluate((v) => {
        const probe = document.createElement('span');
        probe.style.color = `var(${v})`;
        document.body.append(probe);
        const c = getComputedStyle(probe).color;
        probe.remove();
        return c;
      }, name);
    expect(passedColor).toBe(await outcomeColor('--c-completed'));
    expect(passedColor).not.toBe(await outcomeColor('--c-failed'));
    const reasons = await box.locator('li').allTextContents();
    expect(reasons.find((r) => r.startsWith('threshold'))).toMatch(
      /^threshold mean_ttft_ms<=100000 holds: mean_ttft_ms = \d+\.\d\d$/,
    );
    await openRun(page, dashboard, hangId);
    await page.getByTestId('verdict-reasons').waitFor();
    await expect
      .poll(() => page.getByTestId('verdict-reasons').evaluate((el) => getComputedStyle(el).borderLeftColor))
      .toBe(await outcomeColor('--c-failed'));
  });
});
