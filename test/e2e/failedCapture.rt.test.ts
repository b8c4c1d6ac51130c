/**
 * A capture without evidence is not evidence, in Chromium: the same hang run
 * twice by `stallscope bench --report-to` against the reproduction server,
 * once with `--capture-server-stacks --server-pid auto` and no py-spy on PATH.
 * Both runs count the same stalls in the runs list and in Compare (no
 * "unknown" phase); the captured run shows no server-stacks card, only one
 * warning that says what to install.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { afterAll, describe, expect } from 'vitest';
import { runBenchChild } from '#test/helpers/benchChild.ts';
import { ROOT } from '#test/helpers/browser.ts';
import { test as it } from '#test/helpers/browserFixtures.ts';

/** The file's dashboard (its fixture), set in beforeAll. */
const server = { url: '' };
const repros: ChildProcess[] = [];

/** `stallscope repro-server` whose Code2Wav worker blocks in hift, its telemetry posted into `runId`. */
async function reproServer(runId: string): Promise<string> {
  const child = spawn(
    process.execPath,
    [
      'bin/stallscope.js',
      'repro-server',
      '--port',
      '0',
      '--fault',
      'hift:block:after=1',
      '--watchdog-timeout-s',
      '1',
      '--telemetry-url',
      `${server.url}/api/ingest?runId=${runId}`,
    ],
    { cwd: ROOT, stdio: ['pipe', 'pipe', 'inherit'] },
  );
  repros.push(child);
  let out = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`repro-server did not start: ${out}`)), 15_000);
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]);
      }
    });
  });
}

async function benchRun(runId: string, capture: boolean): Promise<string> {
  const url = await reproServer(runId);
  const r = await runBenchChild(
    [
      ...['--base-url', url, '--model', 'openbmb/MiniCPM-o-4_5', '--dataset-name', 'random'],
      ...['--random-input-len', '8', '--random-output-len', '8', '--num-prompts', '8', '--max-concurrency', '4'],
      ...['--omni-request-timeout-s', '3', '--disable-tqdm', '--run-id', runId, '--report-to', server.url],
      ...(capture ? ['--capture-server-stacks', '--server-pid', 'auto'] : []),
    ],
    // No py-spy anywhere on PATH (node itself is started by its full path).
    { PATH: '/usr/bin:/bin' },
  ).done;
  expect(r.code, r.stderr).toBe(3); // timed-out requests fail the run closed
  return r.stdout;
}

const stallCounts = async () => {
  const res = await fetch(`${server.url}/api/runs`);
  const { runs } = (await res.json()) as { runs: { id: string; stallCount: number; stallPhase: string | null }[] };
  return Object.fromEntries(runs.map((r) => [r.id, `${r.stallCount} ${r.stallPhase}`]));
};

describe('a failed server-stacks capture, in Chromium', () => {
  let capturedOut = '';
  it.beforeAll(async ({ dashboard }) => {
    server.url = dashboard.url;
    const outs = await Promise.all([benchRun('plain-run', false), benchRun('captured-run', true)]);
    capturedOut = outs[1];
    for (const c of repros) c.kill();
    // The watchdog's report reaches the dashboard by telemetry: wait until both runs have theirs.
    for (let i = 0; ; i++) {
      const counts = Object.values(await stallCounts());
      if (counts.length === 2 && counts.every((v) => !v.startsWith('0 '))) break;
      if (i > 150) throw new Error(`stall reports never arrived: ${JSON.stringify(await stallCounts())}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }, 90_000);
  afterAll(() => {
    for (const c of repros) c.kill();
  });

  it('says once what to install, in the CLI and on the run page, and shows no capture card', async ({ page }) => {
    expect(capturedOut.split('\n').filter((l) => /py-spy|server stacks/i.test(l))).toEqual([
      expect.stringMatching(/^warning: py-spy not found \('py-spy'\): install it with `pip install py-spy`/),
    ]);
    await page.goto(`${server.url}/#/runs/captured-run`);
    await page.getByTestId('stall-report').first().waitFor({ timeout: 15_000 });
    await expect.poll(() => page.getByTestId('server-stacks').count()).toBe(0);
    const warnings = await page.locator('.warnings li').allTextContents();
    expect(warnings.filter((w) => /py-spy/.test(w))).toEqual([
      expect.stringMatching(/^server stacks: py-spy not found .*pip install py-spy/),
    ]);
  });

  it('counts the same stalls as the run without capture, in the list and in Compare', async ({ page }) => {
    const counts = await stallCounts();
    expect(counts['captured-run']).toBe(counts['plain-run']);
    await page.goto(`${server.url}/#/`);
    const stalls = (id: string) => page.locator(`[data-testid="run-row"][data-run-id="${id}"] td`).nth(9).textContent();
    await expect.poll(() => stalls('captured-run')).toBe('1 · hift');
    expect(await stalls('plain-run')).toBe('1 · hift');

    await page.goto(`${server.url}/#/compare?ids=plain-run,captured-run`);
    const row = page.locator('tr', { has: page.locator('th', { hasText: 'stall reports' }) });
    await expect.poll(() => row.locator('td').allTextContents()).toEqual(['1 (hift)', '1 (hift)']);
    const chart = page.getByTestId('stall-phase-chart');
    await chart.locator('.recharts-bar-rectangle').first().waitFor();
    await expect.poll(() => chart.textContent()).not.toMatch(/unknown/);
  });
});
