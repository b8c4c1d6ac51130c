/**
 * Whether a stack can be taken, found before the run: the ptrace rules
 * (CAP_SYS_PTRACE in CapEff, Yama's ptrace_scope 0–3, the server's user) each
 * give one line with the reason and the fix; py-spy missing or not running is
 * said the same way. The GPU flags parse, and their misuse is refused naming
 * the flag.
 */
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { preflightStacks, ptraceRefusal, type PtraceFacts } from '#server/engine/probes/serverStacks/preflight.ts';
import { belowPythonOn } from '#server/engine/probes/serverStacks/config.ts';
import { parseBenchArgs } from '#server/cli/benchArgs.ts';

const WITH_CAP = 0x1fffeffffffn; // a root container's CapEff: bit 19 (CAP_SYS_PTRACE) set
const WITHOUT_CAP = 0xa80425fbn; // Docker's default set: no CAP_SYS_PTRACE
const facts = (f: Partial<PtraceFacts>): PtraceFacts => ({
  capEff: WITHOUT_CAP,
  scope: 0,
  ourUid: 1000,
  serverUid: 1000,
  serverPid: 4242,
  ...f,
});

describe('ptrace rights', () => {
  it('allowed: the capability (scope 0–2), or the same user at scope 0 or without Yama', () => {
    for (const scope of [0, 1, 2, null]) expect(ptraceRefusal(facts({ capEff: WITH_CAP, scope }))).toBeNull();
    expect(ptraceRefusal(facts({ capEff: WITH_CAP, serverUid: 0 }))).toBeNull();
    expect(ptraceRefusal(facts({ scope: 0 }))).toBeNull();
    expect(ptraceRefusal(facts({ scope: null }))).toBeNull();
  });

  it('refused, each with its reason and fix', () => {
    expect(ptraceRefusal(facts({ capEff: WITH_CAP, scope: 3 }))).toMatch(/ptrace_scope is 3 .*until a reboot/);
    expect(ptraceRefusal(facts({ scope: 2 }))).toMatch(/ptrace_scope is 2 .*lacks it; .*--cap-add SYS_PTRACE/);
    expect(ptraceRefusal(facts({ scope: 1 }))).toMatch(
      /ptrace_scope is 1 .*py-spy is not the server's.*--cap-add SYS_PTRACE.*sysctl -w kernel\.yama\.ptrace_scope=0/,
    );
    expect(ptraceRefusal(facts({ serverUid: 0 }))).toMatch(
      /server \(pid 4242\) runs as uid 0, stallscope as uid 1000, without CAP_SYS_PTRACE; run stallscope as the server's user, or .*--cap-add SYS_PTRACE/,
    );
    expect(ptraceRefusal(facts({ capEff: null, scope: 2 }))).toMatch(/ptrace_scope is 2/);
  });
});

describe('py-spy before the run', () => {
  it('missing, not running, or running: each said', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'stallscope-preflight-'));
    try {
      const bad = join(dir, 'py-spy');
      writeFileSync(bad, '#!/bin/sh\necho "cannot execute binary file: Exec format error" >&2\nexit 126\n');
      chmodSync(bad, 0o755);
      const good = join(dir, 'py-spy-ok');
      writeFileSync(good, '#!/bin/sh\necho py-spy 0.4.0\n');
      chmodSync(good, 0o755);
      expect(await preflightStacks(join(dir, 'nope'), 1)).toMatchObject({ ok: false, kind: 'missing' });
      expect(await preflightStacks(bad, 1)).toEqual({
        ok: false,
        kind: 'not_runnable',
        message: expect.stringMatching(/--version' does not run \(cannot execute binary file: Exec format error\)/),
      });
      expect(await preflightStacks(good, 1, facts({}))).toEqual({ ok: true });
      expect(await preflightStacks(good, 1, facts({ scope: 2 }))).toMatchObject({ ok: false, kind: 'no_ptrace' });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('GPU flags', () => {
  const stacks = (argv: string[]) =>
    parseBenchArgs(['--model', 'm', '--server-pid', '1234', ...argv]).config.evidence.serverStacks!;
  const refused = (argv: string[]) => {
    try {
      parseBenchArgs(['--model', 'm', ...argv]);
    } catch (e) {
      return `${(e as { field?: string }).field}: ${(e as Error).message}`;
    }
    return 'accepted';
  };

  it('on by default with --capture-server-stacks; off with --no-gpu-state-at-stall; on with a silence threshold when asked', () => {
    expect(belowPythonOn(stacks(['--capture-server-stacks']))).toBe(true);
    expect(belowPythonOn(stacks(['--capture-server-stacks', '--no-gpu-state-at-stall']))).toBe(false);
    expect(belowPythonOn(stacks(['--server-stall-after-s', '5']))).toBe(false);
    expect(belowPythonOn(stacks(['--server-stall-after-s', '5', '--gpu-state-at-stall']))).toBe(true);
    expect(
      stacks(['--capture-server-stacks', '--gpu-smi', '/opt/rocm/bin/rocm-smi', '--require-server-stacks']),
    ).toMatchObject({
      gpuSmi: '/opt/rocm/bin/rocm-smi',
      requireStacks: true,
    });
  });

  it('misuse refused naming the flag', () => {
    const pid = ['--server-pid', '1234'];
    expect(refused([...pid, '--capture-server-stacks', '--gpu-state-at-stall', '--no-gpu-state-at-stall'])).toMatch(
      /^--gpu-state-at-stall: .*contradict/,
    );
    expect(refused([...pid, '--capture-server-stacks', '--no-gpu-state-at-stall', '--gpu-smi', 'x'])).toMatch(
      /^--gpu-smi: /,
    );
    expect(refused(['--gpu-state-at-stall'])).toMatch(/^--server-pid: .*need --server-pid/);
    expect(refused(['--require-server-stacks'])).toMatch(/^--server-pid: /);
    expect(refused([...pid, '--require-server-stacks'])).toMatch(
      /^--require-server-stacks: .*needs --capture-server-stacks/,
    );
    expect(refused([...pid, '--gpu-smi', 'x'])).toMatch(/^--gpu-state-at-stall: .*need --capture-server-stacks/);
  });
});
