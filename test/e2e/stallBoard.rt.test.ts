/**
 * The stall board end to end, as the maintainers' story has it, with real
 * processes: a dashboard (`stallscope serve`), a reproduction server per run
 * (`stallscope repro-server`, its Code2Wav worker hung in hift by a fault, or
 * no fault) posting its telemetry to the dashboard, and `stallscope bench
 * --report-to` runs with Buildkite's variables set: builds 14528, 14598,
 * 14604, 14606 and 14607 stall on three nodes, 14541 and 14600 pass between
 * them; one run of another step hangs in cfm. GET /api/stalls and the Stalls
 * page in Chromium show one hift fingerprint with five occurrences, the three
 * nodes, the two passing controls and the sentence, and the cfm run apart;
 * one click compares the latest stall with its nearest passing control (server
 * identity and timelines side by side), and an occurrence's evidence link
 * opens the run at its watchdog report.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { openPage, ROOT, screenshotPath, type Browser } from '#test/helpers/browser.ts';
import { startServer, type RunningServer } from '#test/helpers/dashboardProcess.ts';
import { runBenchChild } from '../helpers/benchChild.ts';
import type { StallsReply } from '#shared/stalls/stallsApi.ts';

interface Repro {
  url: string;
  child: ChildProcess;
}

const repros: Repro[] = [];

/** `stallscope repro-server` with a fast watchdog, its telemetry posted to the dashboard; resolves with its URL. */
async function startRepro(dashboard: string, fault: string | null): Promise<Repro> {
  const args = ['bin/stallscope.js', 'repro-server', '--port', '0', '--watchdog-timeout-s', '0.5'];
  args.push('--telemetry-url', `${dashboard}/api/ingest`, ...(fault ? ['--fault', fault] : []));
  const child = spawn(process.execPath, args, { cwd: ROOT, stdio: ['pipe', 'pipe', 'pipe'] });
  let out = '';
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`repro-server printed no URL within 20 s:\n${out}`)), 20_000);
    child.stdout!.on('data', (b: Buffer) => {
      out += b.toString();
      const m = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]);
      }
    });
    child.stderr!.on('data', (b: Buffer) => (out += b.toString()));
    child.once('exit', (code) => reject(new Error(`repro-server exited with ${code}:\n${out}`)));
  });
  const r = { url, child };
  repros.push(r);
  return r;
}

const COMMIT = (build: string) => `${build}aa0b1c2d3e4f5a6b7c8d9e0f1a2b3c4d5e6f7a`.slice(0, 40);

/**
 * One CI job's `stallscope bench --report-to`, with Buildkite's variables for the build and node. A hung
 * run ends at its 2 s request timeout; a clean one finishes in a fraction of a second and gets a generous
 * limit, so a loaded machine cannot turn a control into a stall.
 */
async function ciRun(
  dashboard: string,
  target: string,
  build: string,
  node: string,
  o: { step?: string; timeoutS: number },
) {
  const r = await runBenchChild(
    [
      '--base-url',
      target,
      '--model',
      'openbmb/MiniCPM-o-4_5',
      '--num-prompts',
      '2',
      '--max-concurrency',
      '2',
      '--random-input-len',
      '8',
      '--random-output-len',
      '8',
      '--omni-request-timeout-s',
      String(o.timeoutS),
      '--omni-fail-fast-on-timeout',
      '--run-id',
      `ci-${build}`,
      '--report-to',
      dashboard,
      '--disable-tqdm',
    ],
    {
      BUILDKITE: 'true',
      BUILDKITE_BUILD_NUMBER: build,
      BUILDKITE_BUILD_URL: `https://buildkite.com/vllm/vllm-omni/builds/${build}`,
      BUILDKITE_JOB_ID: `job-${build}`,
      BUILDKITE_AGENT_NAME: node,
      BUILDKITE_COMMIT: COMMIT(build),
      BUILDKITE_PIPELINE_SLUG: 'vllm-omni',
      BUILDKITE_LABEL: o.step ?? 'minicpmo-accuracy',
    },
  ).done;
  return { code: r.code, output: `${r.stdout}\n${r.stderr}` };
}

const SENTENCE = (label: string) =>
  `fingerprint ${label} seen in 5 of the last 7 runs of minicpmo-accuracy (builds 14528, 14598, 14604, 14606, 14607) on 3 nodes; passing controls 14541, 14600`;

let server: RunningServer;
let browser: Browser;
let page: Page;
let board: StallsReply;

describe('the stall board across CI runs (real processes, Chromium)', () => {
  beforeAll(async () => {
    ({ browser, page } = await openPage());
    server = await startServer();
    const hift = await Promise.all([0, 1, 2, 3, 4].map(() => startRepro(server.url, 'hift:block')));
    const clean = await startRepro(server.url, null);
    const cfm = await startRepro(server.url, 'cfm:block');
    // The story in order: failed_closed (exit 3) for a stall, passed (exit 0) for a clean run.
    const story: [string, string, Repro, number][] = [
      ['14528', 'node-a', hift[0], 3],
      ['14541', 'node-b', clean, 0],
      ['14598', 'node-b', hift[1], 3],
      ['14600', 'node-c', clean, 0],
      ['14604', 'node-c', hift[2], 3],
      ['14606', 'node-a', hift[3], 3],
      ['14607', 'node-b', hift[4], 3],
    ];
    for (const [build, node, target, code] of story) {
      const r = await ciRun(server.url, target.url, build, node, { timeoutS: code === 0 ? 30 : 2 });
      expect(r.code, `build ${build}:\n${r.output}`).toBe(code);
    }
    const other = await ciRun(server.url, cfm.url, '14610', 'node-d', { step: 'qwen3-omni-accuracy', timeoutS: 2 });
    expect(other.code, other.output).toBe(3);
    const r = await fetch(`${server.url}/api/stalls`);
    expect(r.status).toBe(200);
    board = (await r.json()) as StallsReply;
    // Its own folder: this file may run before any other test that writes there (test-output/ is not in git).
    mkdirSync(join(ROOT, 'test-output'), { recursive: true });
    writeFileSync(join(ROOT, 'test-output', 'stall-board.json'), JSON.stringify(board, null, 2));
  }, 150_000);

  afterAll(async () => {
    for (const r of repros) r.child.kill('SIGTERM');
    await browser?.close();
    await server?.stop();
  });

  it('GET /api/stalls: one hift fingerprint, five occurrences on three nodes, two passing controls; cfm apart', () => {
    expect(board.groups.map((g) => [g.phase, g.occurrences])).toEqual([
      ['hift', 5],
      ['cfm', 1],
    ]);
    const [g, other] = board.groups;
    expect(g.label).toMatch(/^hift\/\w+/);
    expect(g.frames.length).toBeGreaterThan(0);
    expect(g).toMatchObject({
      runs: ['ci-14528', 'ci-14598', 'ci-14604', 'ci-14606', 'ci-14607'],
      builds: ['14528', '14598', '14604', '14606', '14607'],
      nodes: ['node-a', 'node-b', 'node-c'],
      controls: { runs: ['ci-14541', 'ci-14600'], builds: ['14541', '14600'] },
    });
    expect(g.commits).toHaveLength(5);
    // Each stalled run: its watchdog report(s) and its first timeout, which joined the stack's fingerprint.
    for (const o of g.evidence) {
      expect(
        o.refs.some((ref) => /^w\d+-op\d+$/.test(ref)),
        o.runId,
      ).toBe(true);
      expect(
        o.refs.some((ref) => /^timeout-\d+$/.test(ref)),
        o.runId,
      ).toBe(true);
    }
    expect(g.jobs.map((j) => j.sentence)).toEqual([SENTENCE(g.label)]);
    expect(other).toMatchObject({ builds: ['14610'], nodes: ['node-d'], controls: { runs: [] } });
    expect(other.fingerprint).not.toBe(g.fingerprint);
  });

  it('the Stalls page shows the fingerprint, its occurrences, nodes, controls and the sentence', async () => {
    await page.goto(`${server.url}/#/stalls`);
    const groups = page.getByTestId('stall-group');
    await expect.poll(() => groups.count()).toBe(2);
    const g = groups.first();
    const label = board.groups[0].label;
    await expect.poll(() => g.getByTestId('stall-label').textContent()).toBe(label);
    await expect.poll(() => g.getByTestId('occurrences').textContent()).toBe('5');
    await expect
      .poll(() => g.getByTestId('nodes').getByTestId('node-name').allTextContents())
      .toEqual(['node-a', 'node-b', 'node-c']);
    await expect.poll(() => g.getByTestId('controls').textContent()).toMatch(/build 14541.*build 14600/);
    await expect.poll(() => g.getByTestId('pattern-sentence').textContent()).toBe(SENTENCE(label));
    await expect.poll(() => g.getByTestId('occurrence').count()).toBe(5);
    // The strip by node: node-a stalled in both its runs, node-b in two of three, node-c in one of two.
    const rates = await g
      .getByTestId('strip-node')
      .evaluateAll((rows) =>
        rows.map((r) => [r.getAttribute('data-node'), r.querySelector('[data-testid="hang-rate"]')?.textContent]),
      );
    expect(rates).toEqual([
      ['node-a', '100 %'],
      ['node-b', '67 %'],
      ['node-c', '50 %'],
    ]);
    await expect.poll(() => groups.nth(1).getAttribute('data-phase')).toBe('cfm');
    await page.screenshot({ path: screenshotPath('stalls-board'), fullPage: true });
  });

  it('one click compares the latest stall with its nearest passing control, server identity side by side', async () => {
    await page.goto(`${server.url}/#/stalls`);
    await page.getByTestId('compare-control').first().click();
    await page.getByTestId('compare-page').waitFor();
    expect(decodeURIComponent(new URL(page.url()).hash)).toBe('#/compare?ids=ci-14607,ci-14600');
    const summary = page.locator('table.compare-summary');
    await expect
      .poll(() => summary.locator('th a').allTextContents())
      .toEqual(['build 14607 · node-b · minicpmo-accuracy', 'build 14600 · node-c · minicpmo-accuracy']);
    const identities = await summary.locator('tr', { hasText: 'server' }).locator('td').allTextContents();
    expect(identities).toEqual([
      expect.stringMatching(/^model openbmb\/MiniCPM-o-4_5 · version .*stallscope reproduction server/),
      expect.stringMatching(/^model openbmb\/MiniCPM-o-4_5 · version /),
    ]);
    // The timelines side by side: the stall's first timeout marked in hift, the control's requests all completed.
    const lanes = page.getByTestId('compare-timeline');
    await expect
      .poll(() => lanes.locator('figcaption').allTextContents())
      .toEqual([
        expect.stringMatching(/^2 requests over \d+\.\d\d s; first timeout #\d in hift$/),
        expect.stringMatching(/^2 requests over \d+\.\d\d s$/),
      ]);
    await expect.poll(() => lanes.nth(1).locator('rect.lane-completed').count()).toBe(2);
    await page.screenshot({ path: screenshotPath('stalls-compare-control'), fullPage: true });
  });

  it("an occurrence's evidence link opens its run at the watchdog report, with the fingerprint on the card", async () => {
    await page.goto(`${server.url}/#/stalls`);
    const link = page.getByTestId('stall-group').first().getByTestId('evidence').first();
    await link.click();
    await page.getByTestId('run-page').waitFor();
    const focused = page.locator('.evidence.focused');
    await focused.waitFor();
    await expect.poll(() => focused.getByTestId('stall-report').getAttribute('data-phase')).toBe('hift');
    await expect
      .poll(() => focused.getByTestId('fingerprint').getAttribute('data-fingerprint'))
      .toBe(board.groups[0].fingerprint);
    // The first timeout is evidence too, with its phase-only fingerprint.
    await expect.poll(() => page.getByTestId('first-timeout').getAttribute('data-phase')).toBe('hift');
    await expect.poll(() => page.getByTestId('server-identity').textContent()).toMatch(/openbmb\/MiniCPM-o-4_5/);
    await page.screenshot({ path: screenshotPath('stalls-evidence-run'), fullPage: false });
  });
});
