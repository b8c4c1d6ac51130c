/**
 * `stallscope bench` against the stdlib Python omni server whose Code2Wav
 * child process hangs in HiFT before istft: the capture at the first timeout
 * finds the blocking frame under its callers in the child and infers `hift`;
 * `auto` finds the server's pid; `--server-stall-after-s 1` captures before a
 * 5 s timeout; the run with capture ends within timeout + 1 s; without
 * py-spy on PATH the run carries on, says once how to install it and
 * records no capture.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { ServerStacksReport } from '#shared/stalls/stallReport.ts';
import { runBenchChild } from '#test/helpers/benchChild.ts';
import { PY_SPY, requireTool, startOmniFixture, VENV_BIN, type OmniFixture } from '#test/helpers/omniFixture.ts';

let fixture: OmniFixture | null = null;
let dir: string | null = null;
afterEach(async () => {
  await fixture?.stop();
  fixture = null;
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = null;
});

interface ServerStacksKey {
  server_pid: number;
  pid_source: string;
  captures: ServerStacksReport[];
  notes: string[];
}

async function bench(f: OmniFixture, extra: string[], env: Record<string, string> = {}) {
  dir = mkdtempSync(join(tmpdir(), 'stallscope-stacks-'));
  const args = [
    '--base-url',
    f.url,
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
    '--save-result',
    '--result-dir',
    dir,
    '--result-filename',
    'r.json',
    ...extra,
  ];
  const out = await runBenchChild(args, { PATH: `${VENV_BIN}:${process.env.PATH}`, ...env }).done;
  const result = JSON.parse(readFileSync(join(dir, 'r.json'), 'utf8')) as Record<string, unknown>;
  return { ...out, result, stacks: result.server_stacks as ServerStacksKey };
}

describe('server stacks from a real Python server (py-spy)', () => {
  it('at the first timeout: the blocking HiFT frame under its callers in the Code2Wav child, phase hift, within timeout + 1 s', async () => {
    requireTool(PY_SPY, 'py-spy (.venv)');
    fixture = await startOmniFixture(['--hang-after', '1']);
    const r = await bench(fixture, [
      '--omni-request-timeout-s',
      '2',
      '--omni-fail-fast-on-timeout',
      '--server-pid',
      String(fixture.pid),
      '--capture-server-stacks',
    ]);
    expect(r.code, r.stderr).toBe(3); // failed_closed: the run went on to its verdict
    expect(r.stacks.server_pid).toBe(fixture.pid);
    expect(r.stacks.captures).toHaveLength(1);
    const c = r.stacks.captures[0];
    expect(c.source).toBe('py-spy');
    expect(c.reason).toMatchObject({ kind: 'first_timeout', requestIndex: 0, timeoutKind: 'total' });
    expect(c.phase).toBe('hift');
    expect(c.inferred).toMatchObject({ pid: fixture.childPid, rule: 'hift-file' });
    expect(c.inferred!.frame.function).toBe('_synchronize');
    expect(c.inferred!.frame.file).toMatch(/minicpmo_4_5\/hift\.py$/);
    // The tree: the server first, its Code2Wav child found from /proc parent pids.
    expect(c.processes[0]).toMatchObject({ pid: fixture.pid, ppid: null });
    const child = c.processes.find((p) => p.pid === fixture!.childPid)!;
    expect(child.ppid).toBe(fixture.pid);
    const owner = child.threads.find((t) => t.tid === c.inferred!.tid)!;
    const fns = owner.frames.map((f) => `${f.function}@${f.file.split('/').pop()}`);
    const at = fns.indexOf('_synchronize@hift.py');
    expect(at).toBeGreaterThanOrEqual(0);
    expect(fns.indexOf('decode_batch@batched_token2wav.py')).toBeGreaterThan(at);
    expect(fns.indexOf('code2wav_stage_main@minicpmo_4_5_code2wav.py')).toBeGreaterThan(at);
    expect(owner.phase).toBe('hift');
    expect(c.stack).toEqual(owner.frames);
    expect(r.stdout).toMatch(/server stacks #1 \(first timeout\): .* inferred phase hift from _synchronize/);
    // The run with capture ends within timeout + 1 s of the request's start (the CLI's own start-up excluded).
    expect(Number(r.result.duration)).toBeGreaterThanOrEqual(2);
    const requestStartMs = c.capturedAtMs - (c.reason as { elapsedS: number }).elapsedS * 1000;
    const exitWallMs = Date.now() - (performance.now() - r.exitedAtMs);
    expect(exitWallMs - requestStartMs).toBeLessThan(2000 + 1000);
  });

  it('auto finds the server pid; --server-stall-after-s 1 captures before a 5 s timeout', async () => {
    requireTool(PY_SPY, 'py-spy (.venv)');
    fixture = await startOmniFixture(['--hang-after', '1']);
    const r = await bench(fixture, [
      '--omni-request-timeout-s',
      '5',
      '--server-pid',
      'auto',
      '--server-stall-after-s',
      '1',
    ]);
    expect(r.code, r.stderr).toBe(3);
    expect(r.stacks).toMatchObject({ server_pid: fixture.pid, pid_source: 'auto' });
    const first = r.stacks.captures[0];
    expect(first.reason).toMatchObject({ kind: 'no_progress', afterS: 1 });
    expect(first.phase).toBe('hift');
    expect(first.requestIds).toHaveLength(1);
    // No progress for 1 s, then a capture (again at most every 1 s while silent): all before the 5 s timeout.
    const timeoutAt = first.capturedAtMs - (first.reason as { silentS: number }).silentS * 1000 + 5000;
    expect(first.capturedAtMs).toBeLessThan(timeoutAt - 2500);
    expect(r.stacks.captures.length).toBeGreaterThanOrEqual(2);
    expect(r.stacks.captures.length).toBeLessThanOrEqual(5);
    const gaps = r.stacks.captures.slice(1).map((c, i) => c.capturedAtMs - r.stacks.captures[i].capturedAtMs);
    for (const g of gaps) expect(g).toBeGreaterThanOrEqual(950);
  });

  it('py-spy missing: one warning line with the install command, no capture; the run carries on', async () => {
    fixture = await startOmniFixture(['--hang-after', '1']);
    const r = await bench(
      fixture,
      ['--omni-request-timeout-s', '1.5', '--server-pid', String(fixture.pid), '--capture-server-stacks'],
      { PATH: '/usr/bin:/bin' },
    );
    expect(r.code, r.stderr).toBe(3);
    // A capture without py-spy would read nothing: it is a warning about the capture, never a stall report.
    const lines = `${r.stdout}\n${r.stderr}`.split('\n').filter((l) => /py-spy|server stacks/i.test(l));
    expect(lines).toEqual([
      expect.stringMatching(/^warning: py-spy not found \('py-spy'\): install it with `pip install py-spy`/),
    ]);
    expect(r.stacks.notes).toEqual([expect.stringContaining('pip install py-spy')]);
    expect(r.stacks.captures).toEqual([]);
  });
});
