/**
 * What a cold load's first paint waits for (docs/performance.md#cold-loads), in Chromium on the board story: each
 * page's data read starts beside its code, not after it. The page's chunks are held or slowed by the browser's own
 * request routing, so the order is forced, not raced: the Stalls page's read starts while its chunk is still on its
 * way, and the page is drawn with its chunk, not a fallback React would then hold back (a chunk that never comes still
 * gets the shell drawn); the Runs list's read starts while React itself is still on its way, and before React first
 * draws; the run page asks for its run and its events together;
 * Compare draws its runs while the chart library's chunk is held, and the chart when it arrives. Code that cannot be
 * loaded is said, not a blank window.
 */
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import type { Page, Route } from 'playwright-core';
import { afterAll, beforeAll, describe, expect } from 'vitest';
import { recordStory } from '#test/helpers/boardStory.ts';
import { ensureWebBuild, launchBrowser, ROOT, type Browser } from '#test/helpers/browser.ts';
import { test as it } from '#test/helpers/fixtures.ts';
import { testApp } from '#test/helpers/dashboardApp.ts';

/** How long a slowed response is held back: far longer than the loopback read it delays, on a loaded machine too. */
const SLOW_MS = 600;

/**
 * Runs before the page's scripts: when React first puts something into #root, and whether the page's Suspense
 * fallback ("Loading the page…") was ever in it.
 */
const FIRST_DRAW = `(() => {
  const mark = () => {
    const root = document.getElementById('root');
    if (!root) return false;
    new MutationObserver((_, o) => { window.__firstDrawAt = performance.now(); o.disconnect(); })
      .observe(root, { childList: true });
    new MutationObserver(() => { if (root.textContent.includes('Loading the page')) window.__pageFallback = true; })
      .observe(root, { childList: true, subtree: true, characterData: true });
    return true;
  };
  if (!mark()) document.addEventListener('DOMContentLoaded', mark, { once: true });
})();`;

interface Timing {
  path: string;
  startTime: number;
  responseEnd: number;
}

/** The resource timings of the page so far: path (with query) and when each started and ended. */
function timings(page: Page): Promise<Timing[]> {
  return page.evaluate(() =>
    performance.getEntriesByType('resource').map((e) => {
      const u = new URL(e.name);
      const r = e as PerformanceResourceTiming;
      return { path: u.pathname + u.search, startTime: r.startTime, responseEnd: r.responseEnd };
    }),
  );
}

const one = (all: Timing[], re: RegExp): Timing => {
  const found = all.filter((t) => re.test(t.path));
  if (found.length !== 1) throw new Error(`expected one request matching ${re}, got ${JSON.stringify(found)}`);
  return found[0];
};

let app: FastifyInstance;
let url = '';
let browser: Browser;
let ids: string[] = [];

beforeAll(async () => {
  ensureWebBuild();
  app = await testApp({ webRoot: join(ROOT, 'dist', 'web') });
  await recordStory(app);
  await app.listen({ host: '127.0.0.1', port: 0 });
  const a = app.server.address();
  url = `http://127.0.0.1:${typeof a === 'object' && a ? a.port : 0}`;
  const list = (await (await fetch(`${url}/api/runs?limit=2`)).json()) as { runs: { id: string }[] };
  ids = list.runs.map((r) => r.id);
  browser = await launchBrowser({ width: 1440, height: 900 });
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await app?.close();
});

/** A new page with its cache off (each test is a cold load) and the first-draw mark installed. */
async function coldPage(): Promise<Page> {
  const page = await browser.context.newPage();
  page.setDefaultTimeout(15_000);
  await page.addInitScript(FIRST_DRAW);
  const cdp = await browser.context.newCDPSession(page);
  await cdp.send('Network.setCacheDisabled', { cacheDisabled: true });
  return page;
}

const slow = (route: Route) => setTimeout(() => void route.continue().catch(() => undefined), SLOW_MS);

describe('a cold load starts its data beside its code (Chromium, 1440 px)', () => {
  it('Stalls: the board is asked for while the page chunk is still on its way', async () => {
    const page = await coldPage();
    try {
      await page.route(/\/assets\/StallsPage-[^/]+\.js$/, slow);
      await page.goto(`${url}/#/stalls`);
      await expect.poll(() => page.locator('[data-testid=stalls-page][data-loaded=true]').count()).toBe(1);
      const all = await timings(page);
      const chunk = one(all, /\/assets\/StallsPage-[^/]+\.js$/);
      const board = one(all, /^\/api\/stalls/);
      // Before: the read could start only once the chunk had arrived and run (start ≥ its end).
      expect(board.startTime).toBeLessThan(chunk.responseEnd - SLOW_MS / 2);
    } finally {
      await page.close();
    }
  });

  it('Stalls: a chunk that arrives within the first draw wait is drawn with its page, never the fallback', async () => {
    const page = await coldPage();
    try {
      await page.route(/\/assets\/StallsPage-[^/]+\.js$/, slow);
      await page.goto(`${url}/#/stalls`);
      await expect.poll(() => page.locator('[data-testid=stalls-page][data-loaded=true]').count()).toBe(1);
      // Before: React drew the shell at once and the page's fallback until the chunk came; what replaced a fallback
      // was then held back by React's 300 ms throttle.
      expect(await page.evaluate(() => (window as unknown as { __pageFallback?: boolean }).__pageFallback)).toBe(
        undefined,
      );
    } finally {
      await page.close();
    }
  });

  it('Stalls: a chunk that does not come still gets the shell and "Loading the page" drawn', async () => {
    const page = await coldPage();
    const held: Route[] = [];
    try {
      await page.route(/\/assets\/StallsPage-[^/]+\.js$/, (r) => void held.push(r));
      await page.goto(`${url}/#/stalls`);
      // Without a bound on the first draw's wait, nothing would be drawn until the chunk came.
      await expect.poll(() => page.getByRole('navigation', { name: 'Main' }).count()).toBe(1);
      await expect.poll(() => page.locator('#main').textContent()).toContain('Loading the page');
      for (const r of held.splice(0)) await r.continue();
      await expect.poll(() => page.locator('[data-testid=stalls-page][data-loaded=true]').count()).toBe(1);
    } finally {
      for (const r of held) await r.continue().catch(() => undefined);
      await page.close();
    }
  });

  it('Runs: the list is asked for while the app (React and the shell) is still on its way', async () => {
    const page = await coldPage();
    const held: Route[] = [];
    try {
      const asked: string[] = [];
      page.on('request', (r) => asked.push(new URL(r.url()).pathname));
      await page.route(/\/assets\/start-[^/]+\.js$/, (r) => void held.push(r));
      await page.goto(`${url}/#/`);
      await expect.poll(() => held.length).toBe(1);
      // Before: the entry held React, so no read started before all of it had been fetched, compiled and run.
      await expect.poll(() => asked.filter((p) => p === '/api/runs').length).toBe(1);
      expect(await page.locator('#root').innerHTML()).toBe('');
      for (const r of held.splice(0)) await r.continue();
      await expect.poll(() => page.locator('[data-testid=run-row]').count()).toBeGreaterThan(0);
    } finally {
      for (const r of held) await r.continue().catch(() => undefined);
      await page.close();
    }
  });

  it('the app is fetched beside the entry, not a round trip after it runs', async () => {
    const page = await coldPage();
    const held: Route[] = [];
    try {
      const asked: string[] = [];
      page.on('request', (r) => asked.push(new URL(r.url()).pathname));
      // The entry itself is held: whatever is fetched meanwhile was named by index.html.
      await page.route(/\/assets\/index-[^/]+\.js$/, (r) => void held.push(r));
      // Not waiting for the load event: the held entry holds it.
      await page.goto(`${url}/#/`, { waitUntil: 'commit' });
      await expect.poll(() => held.length).toBe(1);
      await expect.poll(() => asked.filter((p) => /^\/assets\/start-[^/]+\.js$/.test(p)).length).toBe(1);
      for (const r of held.splice(0)) await r.continue();
      await expect.poll(() => page.locator('[data-testid=run-row]').count()).toBeGreaterThan(0);
    } finally {
      for (const r of held) await r.continue().catch(() => undefined);
      await page.close();
    }
  });

  it('an app that cannot be loaded says so instead of a blank page', async () => {
    const page = await coldPage();
    try {
      await page.route(/\/assets\/start-[^/]+\.js$/, (r) => void r.abort());
      await page.goto(`${url}/#/`);
      await expect.poll(() => page.locator('#root').textContent()).toContain('could not be loaded');
    } finally {
      await page.close();
    }
  });

  it('a page whose code cannot be loaded says so, the shell and the other pages still there', async () => {
    const page = await coldPage();
    try {
      await page.goto(`${url}/#/`);
      await expect.poll(() => page.locator('[data-testid=run-row]').count()).toBeGreaterThan(0);
      // As after the dashboard was upgraded under an open tab: the chunk this build names is gone.
      await page.route(/\/assets\/StallsPage-[^/]+\.js$/, (r) => void r.fulfill({ status: 404, body: 'gone' }));
      await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Stalls' }).click();
      await expect.poll(() => page.getByRole('alert').textContent()).toContain('This page could not be drawn');
      await expect.poll(() => page.getByRole('alert').getByRole('button', { name: 'Try again' }).count()).toBe(1);
      // Before: nothing caught it and React took the whole app down (a blank window, no navigation).
      await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Runs' }).click();
      await expect.poll(() => page.locator('[data-testid=run-row]').count()).toBeGreaterThan(0);
      await expect.poll(() => page.getByRole('alert').count()).toBe(0);
    } finally {
      await page.close();
    }
  });

  it('Runs: the list is asked for before React first draws', async () => {
    const page = await coldPage();
    try {
      await page.goto(`${url}/#/`);
      await expect.poll(() => page.locator('[data-testid=run-row]').count()).toBeGreaterThan(0);
      const drawn = await page.evaluate(() => (window as unknown as { __firstDrawAt?: number }).__firstDrawAt);
      const list = one(await timings(page), /^\/api\/runs\?/);
      // Before: the list's read was an effect of its first render, which React runs in a task after that render's
      // commit; the mark is taken in the commit's own microtask, so the read always started after it.
      expect(drawn).toBeDefined();
      expect(list.startTime).toBeLessThan(drawn!);
    } finally {
      await page.close();
    }
  });

  it('the run page asks for its run and its events together, also when opened from another page', async () => {
    const page = await coldPage();
    try {
      await page.goto(`${url}/#/`);
      await expect.poll(() => page.locator('[data-testid=run-row]').count()).toBeGreaterThan(0);
      // Opened within the app (nothing primed by the entry): the run's detail is slowed, its events are not.
      const detail = new RegExp(`/api/runs/${ids[0]}$`);
      await page.route(detail, slow);
      await page.evaluate((id) => (window.location.hash = `#/runs/${id}`), ids[0]);
      await expect.poll(() => page.locator('[data-testid=run-page][data-loaded=true]').count()).toBe(1);
      const all = await timings(page);
      const run = one(all, detail);
      const events = one(all, new RegExp(`/api/runs/${ids[0]}/events\\?after=0`));
      // Before: the events were asked for once the detail had arrived (start ≥ its end).
      expect(events.startTime).toBeLessThan(run.responseEnd - SLOW_MS / 2);
    } finally {
      await page.close();
    }
  });

  it('Compare draws its runs while the chart library is held, and the chart once it arrives', async () => {
    const page = await coldPage();
    const held: Route[] = [];
    try {
      // Recharts' chunk (and the chart's own, which imports it) does not arrive until released.
      let holding = true;
      await page.route(/\/assets\/(BarChart|StallPhaseChart)-[^/]+\.js$/, (r) =>
        holding ? void held.push(r) : void r.continue(),
      );
      await page.goto(`${url}/#/compare?ids=${ids.join(',')}`);
      await expect.poll(() => page.locator('[data-testid=compare-timeline]').count()).toBe(2);
      await expect.poll(() => page.locator('.compare-page table').count()).toBeGreaterThan(0);
      // The chart's place is kept (its placeholder stands where it will be) while its code is held back.
      await expect.poll(() => held.length).toBeGreaterThan(0);
      await expect.poll(() => page.locator('[data-testid=stall-phase-chart-pending]').count()).toBe(1);
      holding = false;
      for (const r of held.splice(0)) await r.continue();
      await expect.poll(() => page.locator('[data-testid=stall-phase-chart] svg').count()).toBeGreaterThan(0);
      await expect.poll(() => page.locator('[data-testid=stall-phase-chart-pending]').count()).toBe(0);
    } finally {
      for (const r of held) await r.continue().catch(() => undefined);
      await page.close();
    }
  });
});
