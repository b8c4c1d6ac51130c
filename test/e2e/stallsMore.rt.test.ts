/**
 * The Stalls page on a history with more groups than the board shows by default (Chromium): the most frequent
 * BOARD_DEFAULT_GROUPS first, the page saying how many matched, and "Show N more" asking for the next ones through
 * the URL (`groups=`), the groups shown staying drawn while the next ones load, until every group is shown. The
 * board's first draw holds the first screen's groups only, the rest drawn right after (docs/performance.md#cold-loads).
 */
import { join } from 'node:path';
import type { Page, Route } from 'playwright-core';
import { describe, expect } from 'vitest';
import { BOARD_DEFAULT_GROUPS } from '#shared/stalls/boardLimits.ts';
import { ensureWebBuild, launchBrowser, requireChromium, ROOT, type Browser } from '#test/helpers/browser.ts';
import { test as it, type ServedApp } from '#test/helpers/fixtures.ts';
import { loadHistory } from '#test/perf/boardHistory.ts';

type ServeApp = (opts: { webRoot: string }) => Promise<ServedApp>;

/**
 * A dashboard over a history of 3 pipelines × 3 steps × 8 fingerprints (well over the default's groups), and a page
 * of Chromium at 1440 px.
 */
async function withBoard(
  serveApp: ServeApp,
  fn: (url: string, page: Page, browser: Browser) => Promise<void>,
): Promise<void> {
  requireChromium();
  ensureWebBuild();
  const { app, url } = await serveApp({ webRoot: join(ROOT, 'dist', 'web') });
  await loadHistory(app.store, { seed: 11, runs: 400, pipelines: 3, nodes: 4, fingerprints: 8 });
  const browser = await launchBrowser({ width: 1440, height: 900 });
  try {
    const page = await browser.context.newPage();
    page.setDefaultTimeout(10_000);
    await fn(url, page, browser);
  } finally {
    await browser.close();
  }
}

describe('the Stalls page with more groups than it shows at first (Chromium)', () => {
  it(
    'shows the most frequent, then the next ones on demand, until all are shown',
    { timeout: 120_000 },
    async ({ serveApp }) => {
      await withBoard(serveApp, async (url, page) => {
        const total = ((await (await fetch(`${url}/api/stalls?limit=1000`)).json()) as { groupsTotal: number })
          .groupsTotal;
        expect(total).toBeGreaterThan(BOARD_DEFAULT_GROUPS);
        expect(total).toBeLessThanOrEqual(2 * BOARD_DEFAULT_GROUPS);
        await page.goto(`${url}/#/stalls`);
        const groups = page.getByTestId('stall-board').getByTestId('stall-group');
        await expect.poll(() => groups.count()).toBe(BOARD_DEFAULT_GROUPS);
        await expect
          .poll(() => page.getByTestId('board-scope').textContent())
          .toContain(`Showing the ${BOARD_DEFAULT_GROUPS} most frequent of ${total} groups.`);
        const more = page.getByTestId('more-groups');
        await expect.poll(() => more.textContent()).toBe(`Show ${total - BOARD_DEFAULT_GROUPS} more`);
        // The longer board is held on its way: the groups shown stay drawn, the page saying what it is loading.
        const held: Route[] = [];
        await page.route(/\/api\/stalls\?.*limit=/, (r) => void held.push(r));
        await more.click();
        await expect.poll(() => held.length).toBe(1);
        await expect
          .poll(() => page.getByTestId('more-groups-loading').textContent())
          .toBe(`Loading ${total - BOARD_DEFAULT_GROUPS} more…`);
        // Held, so nothing more arrives while these are read.
        await expect.poll(() => groups.count()).toBe(BOARD_DEFAULT_GROUPS);
        await expect.poll(() => page.getByText('Loading the stall board').count()).toBe(0);
        for (const r of held.splice(0)) await r.continue();
        await expect.poll(() => groups.count()).toBe(total);
        await expect.poll(() => page.getByTestId('more-groups-loading').count()).toBe(0);
        await expect.poll(() => page.evaluate(() => location.hash)).toBe(`#/stalls?groups=${total}`);
        await expect.poll(() => more.count()).toBe(0);
        await expect.poll(() => page.getByTestId('board-scope').textContent()).not.toContain('most frequent');
      });
    },
  );

  it(
    "draws the first screen's groups with the page's first data, the rest right after",
    { timeout: 120_000 },
    async ({ serveApp }) => {
      await withBoard(serveApp, async (url, page, browser) => {
        // What the board held when the page first had its data: read by a MutationObserver, whose callback runs
        // once the commit's task ends. React starts its next render in a new task once a render took 5 ms; slowed
        // 4×, the first one always takes longer than that, so the two draws are seen apart on any machine.
        await page.addInitScript(`new MutationObserver((_, o) => {
          const board = document.querySelector('[data-testid=stalls-page][data-loaded=true] [data-testid=stall-board]');
          if (!board) return;
          window.__first = { groups: board.querySelectorAll('[data-testid=stall-group]').length,
            all: board.getAttribute('data-drawn-all') };
          o.disconnect();
        }).observe(document, { childList: true, subtree: true, attributes: true });`);
        const cdp = await browser.context.newCDPSession(page);
        await cdp.send('Emulation.setCPUThrottlingRate', { rate: 4 });
        await page.goto(`${url}/#/stalls`);
        const groups = page.getByTestId('stall-board').getByTestId('stall-group');
        await expect.poll(() => groups.count()).toBe(BOARD_DEFAULT_GROUPS);
        await expect.poll(() => page.getByTestId('stall-board').getAttribute('data-drawn-all')).toBe('true');
        // Without the deferred rest: all BOARD_DEFAULT_GROUPS in the first draw.
        expect(await page.evaluate(() => (window as unknown as { __first?: unknown }).__first)).toEqual({
          groups: 3,
          all: 'false',
        });
      });
    },
  );
});
