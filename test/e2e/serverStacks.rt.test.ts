/**
 * Server stacks in the dashboard, from a real Python server (the stdlib omni
 * fixture, its Code2Wav child hung in HiFT): a dashboard-started URL run with
 * "Capture server stacks", and a CLI run reported with --report-to. Each
 * shows the py-spy capture in the blocked-phase view: phase hift inferred
 * from the blocking frame, the child process's threads (likely blocked
 * first, idle ones folded), and Copy gives the whole dump as text.
 */
import { afterAll, beforeAll, describe, expect } from 'vitest';
import type { Page } from 'playwright-core';
import { screenshotPath } from '#test/helpers/browser.ts';
import { test as it, type Dashboard } from '#test/helpers/browserFixtures.ts';
import { runBenchChild } from '../helpers/benchChild.ts';
import { PY_SPY, requireTool, startOmniFixture, VENV_BIN, type OmniFixture } from '../helpers/omniFixture.ts';

let fixture: OmniFixture;
const oldPath = process.env.PATH;

describe('server stacks in the dashboard (Chromium)', () => {
  beforeAll(async () => {
    requireTool(PY_SPY, 'py-spy (.venv)');
    fixture = await startOmniFixture(['--hang-after', '1']);
    // The dashboard (and the runs it starts) find py-spy on PATH, as a user's would: set before the
    // hook below starts it.
    process.env.PATH = `${VENV_BIN}:${oldPath}`;
  }, 60_000);

  it.beforeAll(async ({ page, dashboard }) => {
    await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: dashboard.url });
  }, 60_000);

  afterAll(async () => {
    process.env.PATH = oldPath;
    await fixture?.stop();
  });

  async function expectCapture(page: Page, dashboard: Dashboard, runId: string, shotName: string): Promise<void> {
    await page.goto(`${dashboard.url}/#/runs/${encodeURIComponent(runId)}`);
    const card = page.getByTestId('server-stacks').first();
    await card.waitFor({ timeout: 20_000 });
    await expect.poll(() => card.getAttribute('data-phase')).toBe('hift');
    await expect
      .poll(() => card.getByTestId('inferred-from').textContent())
      .toMatch(/inferred from frame _synchronize \(.*minicpmo_4_5\/hift\.py:\d+\) in pid (\d+)/);
    // The Code2Wav child: its likely-blocked thread first (phase hift).
    const child = card.locator(`[data-testid="server-process"][data-pid="${fixture.childPid}"]`);
    await expect
      .poll(() => child.locator('[data-testid="server-thread"]').first().getAttribute('data-phase'))
      .toBe('hift');
    // The API server process waits in idle threads only (HTTP loop, stage output, stdin): folded.
    const root = card.locator(`[data-testid="server-process"][data-pid="${fixture.pid}"]`);
    await expect.poll(() => root.locator('details summary').textContent()).toMatch(/[3-9] idle threads/);
    await expect.poll(() => root.locator('details').getAttribute('open')).toBeNull();
    await expect.poll(() => root.locator('details [data-testid="server-thread"]').first().isVisible()).toBe(false);
    await page.screenshot({ path: screenshotPath(shotName), fullPage: true });
    await card.getByTestId('copy-server-stacks').click();
    const text = await page.evaluate(() => navigator.clipboard.readText());
    expect(text).toContain(`Process ${fixture.childPid} (parent ${fixture.pid})`);
    expect(text).toMatch(/inferred phase: hift \(rule hift-file\) from _synchronize/);
    expect(text).toMatch(/decode_batch \(.*batched_token2wav\.py:\d+\)/);
    expect(text).toContain(`Process ${fixture.pid}:`);
  }

  it('the form: "Capture server stacks" for a URL target, pid or auto, auto refused off loopback beside the field', async ({
    page,
    dashboard,
  }) => {
    await page.goto(`${dashboard.url}/#/new`);
    await page.locator('#f-target-kind').selectOption('url');
    await page.getByTestId('capture-server-stacks').check();
    await expect.poll(() => page.locator('#f-target-serverStacks-pid').inputValue()).toBe('auto');
    await page.locator('#f-target-baseUrl').fill('http://10.0.0.7:8000');
    await expect
      .poll(() => page.getByTestId('error-target.serverStacks.pid').textContent())
      .toMatch(/auto needs a loopback base URL .*give its pid instead/);
    await page.locator('#f-target-serverStacks-pid').fill(String(fixture.pid));
    await expect.poll(() => page.getByTestId('error-target.serverStacks.pid').count()).toBe(0);
    await page.locator('#f-target-serverStacks-stallAfterS').fill('60');
    await page.getByTestId('capture-server-stacks').uncheck();
    await expect.poll(() => page.locator('#f-target-serverStacks-pid').count()).toBe(0);
  });

  it('a dashboard-started URL run with "Capture server stacks" shows the capture', async ({ page, dashboard }) => {
    const res = await fetch(`${dashboard.url}/api/runs`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        label: 'server stacks (dashboard)',
        target: { kind: 'url', baseUrl: fixture.url, serverStacks: { pid: fixture.pid } },
        dataset: { name: 'random', inputLen: 8, outputLen: 8 },
        numPrompts: 1,
        timeouts: { totalS: 2 },
        failFast: true,
      }),
    });
    const body = (await res.json()) as { id: string };
    expect(res.status, JSON.stringify(body)).toBe(201);
    await expectCapture(page, dashboard, body.id, 'server-stacks-dashboard-run');
  });

  it('a --report-to run shows the capture live', async ({ page, dashboard }) => {
    const runId = `stacks-report-${Date.now()}`;
    const cli = runBenchChild(
      [
        '--base-url',
        fixture.url,
        '--model',
        'openbmb/MiniCPM-o-4_5',
        '--dataset-name',
        'random',
        '--random-input-len',
        '8',
        '--random-output-len',
        '8',
        '--num-prompts',
        '1',
        '--disable-tqdm',
        '--omni-request-timeout-s',
        '2',
        '--server-pid',
        'auto',
        '--capture-server-stacks',
        '--run-id',
        runId,
        '--report-to',
        dashboard.url,
      ],
      { PATH: `${VENV_BIN}:${oldPath}` },
    );
    const out = await cli.done;
    expect(out.code, out.stderr).toBe(3); // a timed-out request fails the run closed
    await expectCapture(page, dashboard, runId, 'server-stacks-report-to');
  });
});
