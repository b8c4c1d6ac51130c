/**
 * A request's byte budget (docs/design.md#peer-bounds) against hostile
 * targets in their own processes (hostilePeer.child.ts): endless 256 KB–8 MB
 * text deltas over SSE and over a realtime WebSocket, and 15 MB realtime
 * `error` events. A real `stallscope bench` process, two requests
 * (`--random-output-len 128`) under the default 900 s request timeout: the
 * run ends with its result file, each request `failed` with its reason, and
 * the bench's peak RSS (the kernel's VmHWM, read at its exit) under 600 MB.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { runBenchChild } from '#test/helpers/benchChild.ts';
import { REQUEST_BUDGET_FLOOR_BYTES } from '#shared/config/memoryBudget.ts';
import { KEPT_ERROR_CHARS } from '#server/engine/records/keptText.ts';

const PEAK_RSS_BOUND_KB = 600 * 1024;
const stops: (() => void)[] = [];
afterEach(() => {
  for (const s of stops.splice(0).reverse()) s();
});

async function startHostilePeer(mode: 'sse-deltas' | 'ws-deltas' | 'ws-errors' | 'pcm-bytes'): Promise<string> {
  const entry = fileURLToPath(new URL('./hostilePeer.child.ts', import.meta.url));
  const child: ChildProcess = spawn(process.execPath, ['--import', 'tsx', entry, mode], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  stops.push(() => child.kill());
  const lines = createInterface({ input: child.stdout! });
  for await (const line of lines) if (line.startsWith('http://')) return line;
  throw new Error('the hostile peer exited before listening');
}

interface BenchOutcome {
  code: number | null;
  output: string;
  result: { statuses: string[]; errors: string[]; completed: number; failed?: number };
  peakRssKb: number;
  elapsedMs: number;
}

async function bench(url: string, backendArgs: string[]): Promise<BenchOutcome> {
  const dir = mkdtempSync(join(tmpdir(), 'stallscope-budget-'));
  stops.push(() => rmSync(dir, { recursive: true, force: true }));
  const preload = fileURLToPath(new URL('./peakRss.preload.mjs', import.meta.url));
  const started = performance.now();
  const { done } = runBenchChild(
    [
      ...['--base-url', url, '--model', 'hostile', '--num-prompts', '2', '--max-concurrency', '2'],
      ...['--random-input-len', '8', '--random-output-len', '128', ...backendArgs],
      ...['--disable-tqdm', '--save-result', '--save-detailed', '--result-dir', dir, '--result-filename', 'r.json'],
    ],
    { NODE_OPTIONS: `--import ${preload}`, STALLSCOPE_PEAK_RSS_FILE: join(dir, 'peak') },
  );
  const r = await done;
  return {
    code: r.code,
    output: r.stdout + r.stderr,
    result: JSON.parse(readFileSync(join(dir, 'r.json'), 'utf8')),
    peakRssKb: Number(readFileSync(join(dir, 'peak'), 'utf8')),
    elapsedMs: performance.now() - started,
  };
}

/** The budget of a 128-token chat request is the floor (128 × 32 KiB × 4 = 16 MiB < 32 MiB). */
const BUDGET = REQUEST_BUDGET_FLOOR_BYTES;

function expectBudgetFailures(out: BenchOutcome): void {
  expect(out.result.statuses, out.output).toEqual(['failed', 'failed']);
  for (const e of out.result.errors) {
    expect(e).toMatch(/^the server sent more than the request may accumulate: received \d+ bytes, budget \d+$/);
    const [received, budget] = /received (\d+) bytes, budget (\d+)/.exec(e)!.slice(1).map(Number);
    expect(budget).toBe(BUDGET);
    // Stopped at the read that crossed it: at most one read (well under an 8 MB delta) past the budget.
    expect(received).toBeGreaterThan(budget);
    expect(received).toBeLessThan(budget + 9 * 1024 * 1024);
  }
  expect(out.peakRssKb).toBeGreaterThan(0);
  expect(out.peakRssKb).toBeLessThan(PEAK_RSS_BOUND_KB);
  // Both failed (exit 1), the result written; under the 900 s timeout, in seconds.
  expect(out.code).toBe(1);
  expect(out.elapsedMs).toBeLessThan(60_000);
}

describe('a request accumulates at most its budget (REQ_BUDGET), whatever the server streams', () => {
  it('chat: endless 256 KB–8 MB content deltas over SSE fail each request; the result is written', async () => {
    const url = await startHostilePeer('sse-deltas');
    const out = await bench(url, []);
    console.log(
      `chat, endless deltas: peak RSS ${Math.round(out.peakRssKb / 1024)} MB, ${Math.round(out.elapsedMs)} ms`,
    );
    expectBudgetFailures(out);
  }, 90_000);

  it('realtime: endless 256 KB–8 MB text deltas over the WebSocket fail each turn; the result is written', async () => {
    const url = await startHostilePeer('ws-deltas');
    const out = await bench(url, ['--backend', 'openai-realtime-tts', '--endpoint', '/v1/realtime']);
    console.log(
      `realtime, endless deltas: peak RSS ${Math.round(out.peakRssKb / 1024)} MB, ${Math.round(out.elapsedMs)} ms`,
    );
    expectBudgetFailures(out);
  }, 90_000);

  it('speech: endless 256 KB–8 MB chunks of raw PCM fail each request; the result is written', async () => {
    const url = await startHostilePeer('pcm-bytes');
    const out = await bench(url, ['--backend', 'openai-audio-speech', '--endpoint', '/v1/audio/speech']);
    console.log(
      `speech, endless PCM: peak RSS ${Math.round(out.peakRssKb / 1024)} MB, ${Math.round(out.elapsedMs)} ms`,
    );
    expectBudgetFailures(out);
  }, 90_000);

  it('realtime: a 15 MB error event is kept as its first 4,096 characters and a marker', async () => {
    const url = await startHostilePeer('ws-errors');
    const out = await bench(url, ['--backend', 'openai-realtime-tts', '--endpoint', '/v1/realtime']);
    expect(out.result.statuses, out.output).toEqual(['failed', 'failed']);
    for (const e of out.result.errors) {
      expect(e.startsWith('Exxxx')).toBe(true);
      expect(e).toBe(
        `E${'x'.repeat(KEPT_ERROR_CHARS - 1)}…[truncated: ${15 * 1024 * 1024 + 1 - KEPT_ERROR_CHARS} more characters]`,
      );
    }
    expect(out.peakRssKb).toBeLessThan(PEAK_RSS_BOUND_KB);
    expect(out.code).toBe(1);
  }, 90_000);
});
