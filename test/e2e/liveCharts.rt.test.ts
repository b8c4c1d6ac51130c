/**
 * The run charts follow a live run wherever they are on the page, and end
 * equal to what a reload draws: the Code2Wav hang preset as it ships (1,088
 * requests, the embedded reproduction server), its run page opened at once
 * at 1280×800, where the charts sit below the fold. They once kept their
 * first frame (an empty 0–1 s axis) until scrolled to, after the run's end
 * too, until a reload.
 */
import { describe, expect } from 'vitest';
import type { Page } from 'playwright-core';
import { CODE2WAV_HANG } from '#shared/config/presets.ts';
import { test as it } from '#test/helpers/browserFixtures.ts';

interface Drawn {
  endMs: number;
  series: { s: number; inFlight: number; completed: number; failed: number; timedOut: number; cancelled: number }[];
}

/** What the charts were given (their `data-drawn`), the run page's status, and whether the charts are below the fold. */
async function look(page: Page): Promise<{ drawn: string | null; status: string | null; belowFold: boolean }> {
  return page.evaluate(() => {
    const charts = document.querySelector('[data-testid="charts"]');
    return {
      drawn: charts?.getAttribute('data-drawn') ?? null,
      status: document.querySelector('[data-testid="run-status"]')?.getAttribute('data-status') ?? null,
      belowFold: charts !== null && charts.getBoundingClientRect().top >= window.innerHeight,
    };
  });
}

const ended = (d: Drawn) => d.series.reduce((n, p) => n + p.completed + p.failed + p.timedOut + p.cancelled, 0);

describe('live run charts, in Chromium', () => {
  // The dashboard (and the web build it serves) starts within this hook's minute, not in the test.
  it.beforeAll(async ({ dashboard }) => {
    await dashboard.api('/api/health');
  }, 60_000);

  it('follow the hang preset while it runs below the fold, and end equal to a reload', async ({ page, dashboard }) => {
    const { id } = await dashboard.postJson<{ id: string }>('/api/runs', CODE2WAV_HANG.spec);
    await page.goto(`${dashboard.url}/#/runs/${id}`);
    await page.getByTestId('charts').waitFor({ state: 'attached', timeout: 15_000 });

    // While the run is running and the charts are off screen, their time axis grows past its first 1 s.
    let seenLive: { endMs: number; belowFold: boolean } | null = null;
    await expect
      .poll(
        async () => {
          const l = await look(page);
          const d = l.drawn ? (JSON.parse(l.drawn) as Drawn) : null;
          if (d && d.endMs > 1000 && l.status === 'running') seenLive = { endMs: d.endMs, belowFold: l.belowFold };
          return seenLive !== null || l.status !== 'running';
        },
        { timeout: 20_000, interval: 100 },
      )
      .toBe(true);
    expect(seenLive, 'the charts drew a moment of the run past 1 s while it ran').not.toBeNull();
    expect(seenLive!.belowFold).toBe(true);

    // After the end, without scrolling: every request drawn as ended, and the same data a reload draws.
    await expect.poll(async () => (await look(page)).status, { timeout: 30_000 }).toBe('finished');
    await expect
      .poll(async () => ended(JSON.parse((await look(page)).drawn ?? '{"series":[]}') as Drawn), { timeout: 10_000 })
      .toBe(CODE2WAV_HANG.spec.numPrompts);
    const live = await look(page);
    expect(live.belowFold).toBe(true);
    expect((JSON.parse(live.drawn!) as Drawn).endMs).toBeGreaterThan(1000);

    // The same run loaded fresh in a second tab (what a reload draws), and the live page, never scrolled or
    // reloaded, arriving at exactly that: the run's last events (its end time) may still be on their way when every
    // request is drawn as ended, so the live page is polled, not read once.
    const fresh = await page.context().newPage();
    try {
      await fresh.goto(`${dashboard.url}/#/runs/${id}`);
      await expect.poll(() => fresh.getByTestId('run-page').getAttribute('data-loaded')).toBe('true');
      await expect
        .poll(async () => ended(JSON.parse((await look(fresh)).drawn ?? '{"series":[]}') as Drawn), {
          timeout: 10_000,
        })
        .toBe(CODE2WAV_HANG.spec.numPrompts);
      const reloaded = (await look(fresh)).drawn;
      await expect.poll(async () => (await look(page)).drawn, { timeout: 10_000 }).toBe(reloaded);
    } finally {
      await fresh.close();
    }
  }, 90_000);
});
