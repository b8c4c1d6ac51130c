/**
 * Cold loads of the pages a maintainer opens first (`npm run bench coldLoad`; docs/performance.md#cold-loads):
 * Runs, Stalls, Compare and a story range link (the run page a stall's evidence link opens), each in a new
 * Chromium context at 1440 px with the cache disabled, over the generated history (boardHistory.ts) at ~120 runs
 * and at 20,000 runs, on each store (SQLite, then a throwaway PostgreSQL; STALLSCOPE_BENCH_STORES=sqlite for one), each
 * dashboard started as the CLI's is (the default board read at ready). The figure is the time from navigation start to a named element with data being
 * in the DOM (not the shell, not "Loading"), read from a MutationObserver the page runs from its first script, so
 * no polling from the test adds to it. Beside it: the page's own requests to /api/ (start → end, from Resource
 * Timing), so a reader sees what is the server's and what is the page's, and the bytes of script and CSS the page
 * fetched (as sent and decoded). Then the Runs list over the whole history: the longest task (PerformanceObserver
 * 'longtask') while walking it to its last run. Sizes: STALLSCOPE_BENCH_COLD_RUNS=120,20000; loads per page:
 * STALLSCOPE_BENCH_COLD_N; web builds compared round by round on the same history: STALLSCOPE_BENCH_COLD_WEB.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { buildApp } from '#server/dashboard/app.ts';
import { openStore } from '#server/dashboard/store/openStore.ts';
import { ensureWebBuild, requireChromium, ROOT } from '../helpers/browser.ts';
import { startPostgres, type PgCluster } from '../helpers/postgres.ts';
import { loadHistory } from './boardHistory.ts';

const SIZES = (process.env.STALLSCOPE_BENCH_COLD_RUNS ?? '120,20000').split(',').map(Number);
const N = Number(process.env.STALLSCOPE_BENCH_COLD_N ?? 3);
const TARGET_MS = 500;
/**
 * The web builds served, compared round by round under the same load (STALLSCOPE_BENCH_COLD_WEB=dirA,dirB: e.g. an
 * older commit's `vite build` beside this one's); dist/web by default.
 */
const WEB_ROOTS = (process.env.STALLSCOPE_BENCH_COLD_WEB ?? join(ROOT, 'dist', 'web')).split(',');
const LONG_TASK_MS = 100;

/** Runs before the page's own scripts: when the first element matching the selector appears, and long tasks. */
const OBSERVER = `(() => {
  const w = window;
  w.__longTaskEntries = [];
  try { new PerformanceObserver((l) => { for (const e of l.getEntries()) w.__longTaskEntries.push([e.startTime, e.duration]); })
    .observe({ type: 'longtask', buffered: true }); } catch {}
  const sel = sessionStorage.getItem('__contentSelector');
  if (!sel) return;
  const check = () => { if (w.__contentAt === undefined && document.querySelector(sel)) w.__contentAt = performance.now(); };
  new MutationObserver(check).observe(document, { childList: true, subtree: true, attributes: true });
})();`;

/** What the page fetched before its content showed: its /api/ requests, and the bytes of its scripts and CSS. */
const RESOURCES = `(() => {
  const at = window.__contentAt;
  const entries = performance.getEntriesByType('resource');
  const sum = (re, k) => entries.filter((e) => re.test(new URL(e.name).pathname)).reduce((s, e) => s + e[k], 0) / 1024;
  const kb = (re) => sum(re, 'encodedBodySize');
  const api = entries.filter((e) => new URL(e.name).pathname.startsWith('/api/') && e.startTime < at).map((e) => {
    const u = new URL(e.name);
    return { path: u.pathname + u.search, startMs: e.startTime, ms: e.responseEnd - e.startTime };
  });
  return { contentMs: at, api, scriptKb: kb(/\\.m?js$/), scriptRawKb: sum(/\\.m?js$/, 'decodedBodySize'), cssKb: kb(/\\.css$/) };
})()`;

interface Load {
  contentMs: number;
  api: { path: string; startMs: number; ms: number }[];
  /** Script bytes as sent (compressed when the server compresses), and once decoded. */
  scriptKb: number;
  scriptRawKb: number;
  cssKb: number;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;

/** One cold load: a new context (empty cache, cache disabled over CDP), the selector timed from navigation start. */
async function coldLoad(browser: Browser, url: string, selector: string): Promise<Load> {
  const context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
  try {
    // The selector travels in sessionStorage of the origin, set on a blank page of it before the timed navigation.
    await context.addInitScript(`sessionStorage.setItem('__contentSelector', ${JSON.stringify(selector)});`);
    await context.addInitScript(OBSERVER);
    const page = await context.newPage();
    const cdp = await context.newCDPSession(page);
    await cdp.send('Network.enable');
    await cdp.send('Network.setCacheDisabled', { cacheDisabled: true });
    await page.goto(url, { waitUntil: 'commit' });
    await page.waitForFunction(() => (window as unknown as { __contentAt?: number }).__contentAt !== undefined, null, {
      timeout: 30_000,
      polling: 50,
    });
    // A string, not a function: the bench runs under tsx, whose helper names do not exist in the page.
    return (await page.evaluate(RESOURCES)) as Load;
  } finally {
    await context.close();
  }
}

function report(name: string, loads: Load[]): void {
  const ms = loads.map((l) => l.contentMs);
  const m = median(ms);
  const worst = Math.max(...ms);
  const mid = loads[ms.indexOf(m)] ?? loads[0];
  console.log(
    `  ${name.padEnd(34)} median ${m.toFixed(0).padStart(5)} ms, worst ${worst.toFixed(0).padStart(5)} ms` +
      `   target ≤ ${TARGET_MS} ${worst <= TARGET_MS ? 'OK' : 'ABOVE'}` +
      `   (JS ${mid.scriptKb.toFixed(0)} KB sent, ${mid.scriptRawKb.toFixed(0)} KB decoded; CSS ${mid.cssKb.toFixed(0)} KB)`,
  );
  for (const a of mid.api)
    console.log(
      `      api ${a.path.slice(0, 70).padEnd(70)} at ${a.startMs.toFixed(0).padStart(5)} ms, took ${a.ms.toFixed(0)} ms`,
    );
}

/**
 * The Runs list walked to its last run: a few pages by Older, then its Oldest control (or, on a build without one, the
 * last offset in the URL); the longest task from the first page drawn and live to the last page shown.
 */
async function walkRuns(browser: Browser, url: string, total: number): Promise<void> {
  const context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
  try {
    await context.addInitScript(OBSERVER);
    const page: Page = await context.newPage();
    page.setDefaultTimeout(30_000);
    await page.goto(`${url}/#/`);
    await page.locator('[data-testid=run-row]').first().waitFor();
    await page.locator('[data-testid=connection][data-state=live]').waitFor();
    const from = (await page.evaluate('performance.now()')) as number;
    const t0 = Date.now();
    const pager = page.getByRole('navigation', { name: 'Pages' });
    const firstId = () => page.locator('[data-testid=run-row]').first().getAttribute('data-run-id');
    let steps = 0;
    for (; steps < 5; steps++) {
      const older = pager.getByRole('button', { name: 'Older →' });
      if ((await older.count()) === 0 || (await older.isDisabled())) break;
      const before = await firstId();
      await older.click();
      await page.waitForFunction(
        (b) => document.querySelector('[data-testid=run-row]')?.getAttribute('data-run-id') !== b,
        before,
      );
    }
    const oldest = pager.getByRole('button', { name: 'Oldest ⇥' });
    const how = (await oldest.count()) ? 'Oldest' : 'the last offset in the URL';
    if (how === 'Oldest') {
      if (!(await oldest.isDisabled())) await oldest.click();
    } else await page.evaluate(`window.location.hash = '#/?offset=${Math.max(0, total - 1)}'`);
    await page.waitForFunction(
      (n) =>
        /(\d[\d,]*)–(\d[\d,]*) of/.exec(document.querySelector('.pager')?.textContent ?? '')?.[2]?.replace(/,/g, '') ===
        String(n),
      total,
    );
    const ms = Date.now() - t0;
    const tasks = (await page.evaluate('window.__longTaskEntries')) as [number, number][];
    const walk = tasks.filter(([start]) => start >= from).map(([, d]) => d);
    const longest = Math.max(0, ...walk);
    console.log(
      `  Runs list walked (${steps} pages by Older, then ${how}) to run ${total.toLocaleString('en-US')} in ${ms} ms: ` +
        `longest task ${longest.toFixed(0)} ms (target ≤ ${LONG_TASK_MS}) ${longest <= LONG_TASK_MS ? 'OK' : 'ABOVE'}; ` +
        `${walk.length} long tasks`,
    );
  } finally {
    await context.close();
  }
}

/** Where the history is: SQLite's data folder, or a PostgreSQL database. */
type StoreAt = { dataDir: string; database: null } | { dataDir: null; database: string };

/** One dashboard on the loaded store serving `webRoot` (as the CLI starts it), its URL handed to `fn`, closed after. */
async function withApp<T>(at: StoreAt, webRoot: string, fn: (url: string) => Promise<T>): Promise<T> {
  const app = await buildApp({ ...at, logger: false, webRoot, warmBoard: true });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const addr = app.server.address();
  try {
    return await fn(`http://127.0.0.1:${typeof addr === 'object' && addr ? addr.port : 0}`);
  } finally {
    await app.close();
  }
}

/** The pages timed: name, hash, the selector of their content. */
type PageSpec = [string, string, string];

async function measure(browser: Browser, runs: number, cluster: PgCluster | null): Promise<void> {
  const at: StoreAt = cluster
    ? { dataDir: null, database: await cluster.freshDatabase() }
    : { dataDir: mkdtempSync(join(tmpdir(), 'stallscope-cold-load-')), database: null };
  try {
    const store = await openStore(at);
    const n = await loadHistory(store, { runs });
    await store.close();
    const { pages, total } = await withApp(at, WEB_ROOTS[0], async (url) => {
      const list = (await (await fetch(`${url}/api/runs?limit=2`)).json()) as { runs: { id: string }[]; total: number };
      const story = await storyLink(browser, url);
      const specs: PageSpec[] = [
        ['Runs (rows)', '#/', '[data-testid=run-row]'],
        ['Stalls (board loaded)', '#/stalls', '[data-testid=stalls-page][data-loaded=true]'],
        [
          'Compare 2 runs (timelines)',
          `#/compare?ids=${list.runs.map((r) => r.id).join(',')}`,
          '[data-testid=compare-timeline]',
        ],
        ...(story
          ? [
              [
                `Story range link (${story.slice(0, 20)}…)`,
                story,
                '[data-testid=run-page][data-loaded=true]',
              ] as PageSpec,
            ]
          : []),
      ];
      if (!story) console.log('  Story range link: no evidence link on the board');
      return { pages: specs, total: list.total };
    });
    console.log(`${n} runs (${cluster ? 'PostgreSQL' : 'SQLite'}), load ${(await loadAvg()).join(' ')}:`);
    // Each round loads every page once from every web build, so builds compared share the machine's load.
    const loads = new Map<string, Load[]>();
    const failed = new Set<string>();
    for (let i = 0; i < N; i++)
      for (const webRoot of WEB_ROOTS)
        await withApp(at, webRoot, async (url) => {
          for (const [name, hash, selector] of pages) {
            const key = `${webRoot}\0${name}`;
            if (failed.has(key)) continue;
            try {
              loads.set(key, [...(loads.get(key) ?? []), await coldLoad(browser, `${url}/${hash}`, selector)]);
            } catch (e) {
              // One page that never shows its content is a figure too; the other pages are still measured.
              failed.add(key);
              console.log(`  ${name}: content not shown within 30 s (${String(e).split('\n')[0]})`);
            }
          }
        });
    for (const webRoot of WEB_ROOTS) {
      if (WEB_ROOTS.length > 1) console.log(` web build ${webRoot}:`);
      for (const [name] of pages) {
        const l = loads.get(`${webRoot}\0${name}`);
        if (l?.length) report(name, l);
      }
      await withApp(at, webRoot, (url) => walkRuns(browser, url, total));
    }
    console.log(`  (load after: ${(await loadAvg()).join(' ')})`);
  } finally {
    if (at.dataDir) rmSync(at.dataDir, { recursive: true, force: true });
  }
}

/** The hash of the first evidence link the Stalls page offers: the story's range link a maintainer follows. */
async function storyLink(browser: Browser, url: string): Promise<string | null> {
  const context = await browser.newContext();
  try {
    const page = await context.newPage();
    await page.goto(`${url}/#/stalls`);
    const link = page.locator('[data-testid=evidence]').first();
    await link.waitFor({ timeout: 30_000 }).catch(() => undefined);
    const h = (await link.count()) ? await link.getAttribute('href') : null;
    return h && h.startsWith('#') ? h : null;
  } finally {
    await context.close();
  }
}

async function loadAvg(): Promise<string[]> {
  const { loadavg } = await import('node:os');
  return loadavg().map((x) => x.toFixed(1));
}

ensureWebBuild();
const browser = await chromium.launch({
  executablePath: requireChromium(),
  headless: true,
  args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update'],
});
try {
  console.log(
    `cold loads at 1440×900, new context each, cache disabled; ${N} loads per page; figure: navigation start → content`,
  );
  const stores = (process.env.STALLSCOPE_BENCH_STORES ?? 'sqlite,postgres').split(',');
  if (stores.includes('sqlite')) for (const runs of SIZES) await measure(browser, runs, null);
  if (stores.includes('postgres')) {
    const cluster = await startPostgres();
    try {
      for (const runs of SIZES) await measure(browser, runs, cluster);
    } finally {
      cluster.destroy();
    }
  }
} finally {
  await browser.close();
}
