/**
 * Process-level behaviour: close() leaves nothing behind (the process exits
 * by itself), and the `stallscope repro-server` command prints its one
 * listening line, serves, and exits 0 on SIGTERM while a worker hangs.
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { chatBody } from '#test/helpers/reproChat.ts';

const root = fileURLToPath(new URL('../../../', import.meta.url));

function run(args: string[], env: NodeJS.ProcessEnv = {}) {
  const child = spawn(process.execPath, args, {
    cwd: root,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => (stdout += d));
  child.stderr.on('data', (d) => (stderr += d));
  const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
  return { child, exited, out: () => stdout, err: () => stderr };
}

async function within<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let t: NodeJS.Timeout;
  return Promise.race([
    p,
    new Promise<T>((_, rej) => {
      t = setTimeout(() => rej(new Error(`${what} did not happen within ${ms} ms`)), ms);
    }),
  ]).finally(() => clearTimeout(t));
}

describe('target lifecycle', () => {
  it('exits on its own after close(), also after a stall report and with a worker still blocked', async () => {
    const p = run(['--import', 'tsx', 'test/server/repro/fixtures/closeAfterStall.ts']);
    const code = await within(p.exited, 12_000, 'exit after close');
    expect(p.err()).toBe('');
    expect(p.out()).toBe('stall cfm blockOnDeviceSync\nclosed\n');
    expect(code).toBe(0);
  });

  it('repro-server prints exactly one listening line, reports a stall to stderr, and exits 0 on SIGTERM', async () => {
    const p = run(
      [
        'bin/stallscope.js',
        'repro-server',
        '--port',
        '0',
        '--fault',
        'hift:spin:after=1',
        '--token-rate',
        '1000',
        '--telemetry-file',
        '-',
      ],
      { VLLM_OMNI_CODE2WAV_WATCHDOG_TIMEOUT_S: '0.2' },
    );
    const url = await within(
      (async () => {
        for (;;) {
          const m = /^stallscope repro-server listening on (http:\/\/127\.0\.0\.1:\d+)\n/.exec(p.out());
          if (m) return m[1];
          await new Promise((r) => setTimeout(r, 20));
        }
      })(),
      8000,
      'listening line',
    );
    fetch(`${url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-request-id': 'cli-0' },
      body: JSON.stringify(chatBody({ max_tokens: 4 })),
    })
      .then((r) => r.text())
      .catch(() => undefined);
    await within(
      (async () => {
        while (!p.err().includes('at spinInKernel')) await new Promise((r) => setTimeout(r, 20));
      })(),
      8000,
      'stall report on stderr',
    );
    p.child.kill('SIGTERM');
    expect(await within(p.exited, 8000, 'exit on SIGTERM')).toBe(0);
    expect(p.err()).toMatch(/phase hift\n {2}requests: cli-0\n/);
    const lines = p.out().trim().split('\n');
    expect(lines[0]).toBe(`stallscope repro-server listening on ${url}`);
    // The rest of stdout is the NDJSON telemetry (--telemetry-file -), flushed before exit.
    const events = lines.slice(1).map((l) => JSON.parse(l));
    expect(
      events.some(
        (e) =>
          e.type === 'watchdog.stall' &&
          e.report.requestIds[0] === 'cli-0' &&
          e.report.stack[0].function === 'spinInKernel',
      ),
    ).toBe(true);
  });

  it('refuses an invalid watchdog setting, naming its source', async () => {
    const env = run(['bin/stallscope.js', 'repro-server', '--port', '0'], {
      VLLM_OMNI_CODE2WAV_WATCHDOG_TIMEOUT_S: 'soon',
    });
    expect(await within(env.exited, 8000, 'refusal')).toBe(2);
    expect(env.err()).toContain('environment variable VLLM_OMNI_CODE2WAV_WATCHDOG_TIMEOUT_S');
    expect(env.out()).toBe('');
  });
});
