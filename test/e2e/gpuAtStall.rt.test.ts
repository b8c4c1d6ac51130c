/**
 * Below Python at the stall, on the run page (Chromium): a CLI run against
 * the real Python server (its Code2Wav child hung in HiFT) reported with
 * --report-to, stand-in rocm-smi and dmesg first on PATH. The server-stacks
 * card says "GPU 0 busy 100 % at the stall" and how many GPU hang/reset lines
 * the kernel logged, with the lines folded beneath; the evidence file
 * carries the same facts in the capture.
 */
import { afterAll, beforeAll, describe, expect } from 'vitest';
import { screenshotPath } from '#test/helpers/browser.ts';
import { test as it } from '#test/helpers/browserFixtures.ts';
import { runBenchChild } from '#test/helpers/benchChild.ts';
import { standIns, type StandIns } from '#test/helpers/gpuTools.ts';
import { PY_SPY, requireTool, startOmniFixture, VENV_BIN, type OmniFixture } from '#test/helpers/omniFixture.ts';
import type { ServerStacksReport } from '#shared/stalls/stallReport.ts';

let fixture: OmniFixture;
let tools: StandIns;

describe('GPU state and kernel log on the run page (Chromium)', () => {
  beforeAll(async () => {
    requireTool(PY_SPY, 'py-spy (.venv)');
    fixture = await startOmniFixture(['--hang-after', '1']);
    tools = standIns(
      { 'rocm-smi': { fixture: 'rocm-smi-pids.json.txt' }, dmesg: 'dmesgFixture' },
      { pid: fixture.childPid, other: 1 },
    );
  }, 60_000);

  afterAll(async () => {
    tools?.cleanup();
    await fixture?.stop();
  });

  it('a --report-to run: the card says the GPU was busy and what the kernel logged; the evidence file has it', async ({
    page,
    dashboard,
  }) => {
    const runId = `gpu-at-stall-${Date.now()}`;
    const out = await runBenchChild(
      [
        ...['--base-url', fixture.url, '--model', 'openbmb/MiniCPM-o-4_5', '--dataset-name', 'random'],
        ...['--random-input-len', '8', '--random-output-len', '8', '--num-prompts', '1', '--disable-tqdm'],
        ...['--omni-request-timeout-s', '2', '--server-pid', String(fixture.pid), '--capture-server-stacks'],
        ...['--run-id', runId, '--report-to', dashboard.url],
      ],
      { PATH: `${tools.bin}:${VENV_BIN}:/usr/bin:/bin` },
    ).done;
    expect(out.code, out.stderr).toBe(3);
    await page.goto(`${dashboard.url}/#/runs/${encodeURIComponent(runId)}`);
    const card = page.getByTestId('server-stacks').first();
    await card.waitFor({ timeout: 20_000 });
    await expect
      .poll(() => card.getByTestId('gpu-at-stall').textContent())
      .toBe('GPU 0 busy 100 % at the stall · 8 GPU hang/reset lines in the kernel log since the run started');
    const log = card.getByTestId('kernel-log-at-stall');
    await log.locator('summary').click();
    await expect
      .poll(() => log.locator('pre').textContent())
      .toMatch(
        /amdgpu 0000:28:00\.0: ring gfx_0\.0\.0 timeout, signaled seq=57638, emitted seq=57641[\s\S]*NVRM: Xid \(PCI:0000:44:00\): 79/,
      );
    await page.screenshot({ path: screenshotPath('gpu-at-stall'), fullPage: true });

    const res = await fetch(`${dashboard.url}/api/runs/${encodeURIComponent(runId)}/export?format=evidence`);
    expect(res.status).toBe(200);
    const text = await res.text();
    const captures: ServerStacksReport[] = [];
    // The capture may be nested anywhere in the file's stall list: found by its source.
    JSON.parse(text, (_k, v: unknown) => {
      if (v && typeof v === 'object' && (v as { source?: string }).source === 'py-spy')
        captures.push(v as ServerStacksReport);
      return v;
    });
    expect(captures.length).toBeGreaterThan(0);
    expect(captures[0].gpuAtStall).toMatchObject({
      tool: 'rocm-smi',
      server_pids: [fixture.childPid],
      devices: [expect.objectContaining({ utilization_pct: 100 })],
    });
    expect(captures[0].kernelLogAtStall!.lines).toHaveLength(8);

    // The bug report carries the same facts, under their own heading.
    const report = await (await fetch(`${dashboard.url}/api/runs/${encodeURIComponent(runId)}/report.md`)).text();
    const below = report.slice(report.indexOf('## Below Python at the stall'));
    expect(below).toMatch(
      /^## Below Python at the stall\n\n```+text\ngpu at the stall \(rocm-smi, \d+ ms\): GPU 0 busy 100 % at the stall/,
    );
    expect(below).toContain('kernel log at the stall: 8 GPU hang/reset lines since the run started');
  }, 90_000);
});
