/**
 * `stallscope bench --capture-server-stacks` against the stdlib Python omni
 * server whose Code2Wav child hangs, with stand-in rocm-smi / nvidia-smi /
 * dmesg first on PATH: the result's `gpu_at_stall` and `kernel_log_at_stall`
 * hold the parsed facts (the child's PID on its device), the first capture
 * carries them, the run ends within timeout + 1 s when the tools answer and
 * within the tools' 5 s deadline + 1 s when they never do; `--no-gpu-state-at-stall`
 * turns it off; `--require-server-stacks` refuses to start when py-spy does not run.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { GpuAtStall, KernelLogAtStall } from '#shared/stalls/gpuState.ts';
import type { ServerStacksReport } from '#shared/stalls/stallReport.ts';
import { runBenchChild } from '#test/helpers/benchChild.ts';
import { standIns, type StandIns } from '#test/helpers/gpuTools.ts';
import { PY_SPY, requireTool, startOmniFixture, VENV_BIN, type OmniFixture } from '#test/helpers/omniFixture.ts';

let fixture: OmniFixture | null = null;
let tools: StandIns | null = null;
let dir: string | null = null;
afterEach(async () => {
  await fixture?.stop();
  fixture = null;
  tools?.cleanup();
  tools = null;
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = null;
});

async function bench(f: OmniFixture, t: StandIns | null, extra: string[]) {
  dir = mkdtempSync(join(tmpdir(), 'stallscope-gpu-'));
  const args = [
    ...['--base-url', f.url, '--model', 'openbmb/MiniCPM-o-4_5', '--dataset-name', 'random'],
    ...['--random-input-len', '8', '--random-output-len', '8', '--num-prompts', '1', '--disable-tqdm'],
    ...['--save-result', '--result-dir', dir, '--result-filename', 'r.json'],
    ...['--omni-request-timeout-s', '2', '--omni-fail-fast-on-timeout', '--server-pid', String(f.pid)],
    ...extra,
  ];
  const path = `${t ? `${t.bin}:` : ''}${VENV_BIN}:/usr/bin:/bin`;
  const out = await runBenchChild(args, { PATH: path }).done;
  let result: Record<string, unknown> = {};
  try {
    result = JSON.parse(readFileSync(join(dir, 'r.json'), 'utf8')) as Record<string, unknown>;
  } catch {
    /* refused before the run: no result */
  }
  const captures = (result.server_stacks as { captures: ServerStacksReport[] } | undefined)?.captures ?? [];
  return {
    ...out,
    result,
    captures,
    gpu: result.gpu_at_stall as GpuAtStall | undefined,
    kernel: result.kernel_log_at_stall as KernelLogAtStall | undefined,
    /** From the timed-out request's start to the CLI's exit, in ms (its own start-up excluded). */
    startToExitMs() {
      const c = captures[0];
      const startMs = c.capturedAtMs - (c.reason as { elapsedS: number }).elapsedS * 1000;
      return Date.now() - (performance.now() - out.exitedAtMs) - startMs;
    },
  };
}

describe('GPU state and kernel log at the stall (stand-in tools, real Python server, real py-spy)', () => {
  it('rocm-smi and dmesg answering: parsed facts in the result and the first capture; exit within timeout + 1 s', async () => {
    requireTool(PY_SPY, 'py-spy (.venv)');
    fixture = await startOmniFixture(['--hang-after', '1']);
    tools = standIns(
      { 'rocm-smi': { fixture: 'rocm-smi-pids.json.txt' }, dmesg: 'dmesgFixture' },
      { pid: fixture.childPid, other: 1 },
    );
    const r = await bench(fixture, tools, ['--capture-server-stacks']);
    expect(r.code, r.stderr).toBe(3);
    expect(r.gpu).toMatchObject({ tool: 'rocm-smi', server_pids: [fixture.childPid] });
    expect(r.gpu!.error).toBeUndefined();
    expect(r.gpu!.devices).toEqual([
      expect.objectContaining({ index: 0, utilization_pct: 100, power_w: 128, pids: [fixture.childPid] }),
    ]);
    expect(r.kernel!.error).toBeUndefined();
    expect(r.kernel!.lines).toHaveLength(8);
    expect(r.kernel!.lines[0]).toMatch(/amdgpu 0000:28:00\.0: ring gfx_0\.0\.0 timeout, signaled seq=57638/);
    // The stall report carries the same facts (to the dashboard, the evidence file and the board).
    expect(r.captures[0].gpuAtStall).toEqual(r.gpu);
    expect(r.captures[0].kernelLogAtStall).toEqual(r.kernel);
    expect(r.stdout).toMatch(/GPU at the stall \(rocm-smi, \d+ ms\): GPU 0 busy 100 % at the stall/);
    expect(r.stdout).toMatch(/Kernel log at the stall: 8 GPU hang\/reset lines since the run started/);
    // The closing summary repeats them per device, beside the liveness block.
    expect(r.stdout).toMatch(
      /=+ Below Python at the stall =+\ngpu at the stall \(rocm-smi, \d+ ms\): GPU 0 busy 100 % at the stall\n {2}GPU 0 AMD INSTINCT MI200 \(MCM\) OAM LC MBA HPE C2 \(card0\): use 100 %, memory \? \/ \? \(0 %\), power 128 W, server pids \d+/,
    );
    expect(r.startToExitMs()).toBeLessThan(2000 + 1000);
  });

  it('nvidia-smi only: the server child on the device whose uuid it holds', async () => {
    requireTool(PY_SPY, 'py-spy (.venv)');
    fixture = await startOmniFixture(['--hang-after', '1']);
    tools = standIns(
      {
        'nvidia-smi': { gpus: 'nvidia-smi-query-gpu.csv.txt', apps: 'nvidia-smi-compute-apps.csv.txt' },
        dmesg: 'eperm',
      },
      { pid: fixture.childPid, other: 1 },
    );
    const r = await bench(fixture, tools, ['--capture-server-stacks']);
    expect(r.code, r.stderr).toBe(3);
    expect(r.gpu!.tool).toBe('nvidia-smi');
    expect(r.gpu!.devices.map((d) => [d.index, d.utilization_pct, d.pids])).toEqual([
      [0, 86, [fixture.childPid]],
      [1, 0, []],
    ]);
    // A refused kernel log is the record's error, never the run's failure.
    expect(r.kernel).toMatchObject({ lines: [], error: expect.stringContaining('CAP_SYSLOG') });
  });

  it('a GPU tool and a dmesg that never answer: errors at the 5 s deadline, exit within timeout + 5 s + 1 s', async () => {
    requireTool(PY_SPY, 'py-spy (.venv)');
    fixture = await startOmniFixture(['--hang-after', '1']);
    tools = standIns({ 'rocm-smi': 'holdOpen', dmesg: 'sleep' });
    const r = await bench(fixture, tools, ['--capture-server-stacks']);
    expect(r.code, r.stderr).toBe(3);
    expect(r.gpu).toMatchObject({
      tool: 'rocm-smi',
      devices: [],
      error: expect.stringMatching(/did not answer within 5\.0 s; killed/),
    });
    expect(r.kernel!.error).toMatch(/^dmesg did not answer within 5\.0 s/);
    expect(r.captures[0].phase).toBe('hift'); // the stacks themselves are unaffected
    expect(r.startToExitMs()).toBeLessThan(2000 + 5000 + 1000);
  });

  it('--no-gpu-state-at-stall: neither tool runs, neither key is written', async () => {
    requireTool(PY_SPY, 'py-spy (.venv)');
    fixture = await startOmniFixture(['--hang-after', '1']);
    tools = standIns({ 'rocm-smi': { fixture: 'rocm-smi-pids.json.txt' }, dmesg: 'dmesgFixture' });
    const r = await bench(fixture, tools, ['--capture-server-stacks', '--no-gpu-state-at-stall']);
    expect(r.code, r.stderr).toBe(3);
    expect('gpu_at_stall' in r.result).toBe(false);
    expect('kernel_log_at_stall' in r.result).toBe(false);
    expect(r.captures[0].gpuAtStall).toBeUndefined();
    expect(r.stdout).not.toMatch(/GPU at the stall/);
  });

  it('py-spy that does not run: one line with why and the fix, the run goes on; --require-server-stacks refuses to start', async () => {
    fixture = await startOmniFixture(['--hang-after', '1']);
    tools = standIns({ 'py-spy': 'fail', 'rocm-smi': { fixture: 'rocm-smi-5-mi250.json.txt' } });
    const on = await bench(fixture, tools, ['--capture-server-stacks', '--py-spy', `${tools.bin}/py-spy`]);
    expect(on.code, on.stderr).toBe(3);
    expect(`${on.stdout}\n${on.stderr}`).toMatch(
      /warning: server stacks cannot be taken: '.*py-spy --version' does not run \(stand-in failure\); reinstall it with `pip install py-spy`/,
    );
    // Without a stack, the GPU state is still taken at the stall.
    expect(on.gpu!.devices[0].utilization_pct).toBe(100);
    const refused = await bench(fixture, tools, [
      '--capture-server-stacks',
      '--require-server-stacks',
      '--py-spy',
      `${tools.bin}/py-spy`,
    ]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(
      /server stacks are required but cannot be taken: --require-server-stacks: server stacks cannot be taken: '.*py-spy --version' does not run/,
    );
  });
});
