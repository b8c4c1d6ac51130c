/**
 * `no_progress>=2s` against a hang under the default 900 s request timeout
 * (docs/design.md#stop-rules): the run ends within 3 s of the server's last
 * byte, every time, in both connection modes — against a loopback server
 * hanging one request mid-stream at seeded positions, against the
 * reproduction server with a Code2Wav hang (in process), and as a real
 * `stallscope bench` process, timed from the last byte on the wire (a proxy)
 * to the process's exit.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runBenchmark } from '#server/engine/engine.ts';
import { startReproServer } from '#server/repro/server.ts';
import type { ReproServerOptions } from '#server/repro/config.ts';
import type { ConnectionMode } from '#shared/types.ts';
import { startSseServer } from '#test/helpers/sseServer.ts';
import { testBenchConfig } from '#test/helpers/benchConfig.ts';
import { startByteProxy } from '#test/helpers/byteProxy.ts';
import { indexOfId } from '#test/helpers/failingServer.ts';
import { runBenchChild } from '#test/helpers/benchChild.ts';
import { MODEL } from '#test/helpers/code2wav.ts';

const stops: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const s of stops.splice(0).reverse()) await s();
});

const MODES: ConnectionMode[] = ['per_request', 'keep_alive'];
/** The repro server streams text, then its Code2Wav worker blocks in hift at the 3rd batch for good. */
const REPRO: ReproServerOptions = { tokenRate: 1000, faults: ['hift:block:after=3'], log: () => undefined };
const OMNI_BODY = { modalities: ['text', 'audio'], ignore_eos: true };

/** A seeded position in [0, n) (Knuth's multiplicative hash of the seed). */
const position = (seed: number, n: number): number => Math.floor((((seed * 2654435761) >>> 0) / 2 ** 32) * n);

describe('no_progress>=2s under a 900 s timeout', () => {
  for (const mode of MODES)
    for (const seed of [1, 2, 3]) {
      it(`${mode}, seed ${seed}: a request hanging mid-stream ends the run within 3 s of the last byte`, async () => {
        const hangAt = position(seed, 12);
        const server = await startSseServer((a) =>
          indexOfId(a.requestId) === hangAt ? { kind: 'hang-mid-stream', events: 2 } : { kind: 'ok', tokens: 4 },
        );
        stops.push(() => server.close());
        const proxy = await startByteProxy(server.url);
        stops.push(() => proxy.close());
        const out = await runBenchmark(
          testBenchConfig(proxy.url, {
            numPrompts: 12,
            maxConcurrency: 3,
            timeouts: {}, // the default: 900 s
            connectionMode: mode,
            stopOn: ['no_progress>=2s'],
          }),
          { warmClient: false },
        );
        const afterStallMs = performance.now() - proxy.lastDownMs;
        expect(afterStallMs).toBeGreaterThanOrEqual(1990);
        expect(afterStallMs).toBeLessThan(3000);
        const stopped = out.result.stopped_by as Record<string, any>;
        expect(stopped).toMatchObject({ kind: 'no_progress', rule: 'no_progress>=2s' });
        expect(stopped.value).toBeGreaterThanOrEqual(2);
        expect(stopped.requests.map((r: { index: number }) => r.index)).toEqual([hangAt]);
        expect(out.summary.verdict).toBe('failed_closed');
        expect(out.result.completed).toBe(11); // everything else had completed: kept
        expect(out.statuses.at(hangAt)).toBe('cancelled_after_timeout');
      });
    }

  for (const mode of MODES)
    it(`${mode}: the reproduction server with a Code2Wav hang, in process`, async () => {
      const target = await startReproServer(REPRO);
      stops.push(() => target.close());
      const proxy = await startByteProxy(target.url);
      stops.push(() => proxy.close());
      const out = await runBenchmark(
        testBenchConfig(proxy.url, {
          model: MODEL,
          numPrompts: 12,
          maxConcurrency: 2,
          dataset: { name: 'random', inputLen: 8, outputLen: 8 },
          timeouts: {},
          connectionMode: mode,
          extraBody: OMNI_BODY,
          stopOn: ['no_progress>=2s'],
        }),
        { warmClient: false },
      );
      const afterStallMs = performance.now() - proxy.lastDownMs;
      expect(afterStallMs).toBeGreaterThanOrEqual(1990);
      expect(afterStallMs).toBeLessThan(3000);
      expect(out.result.stopped_by).toMatchObject({ kind: 'no_progress' });
      expect(out.summary.verdict).toBe('failed_closed');
    });

  for (const mode of MODES)
    it(`${mode}: stallscope bench exits within 3 s of the last byte on the wire`, async () => {
      const target = await startReproServer(REPRO);
      stops.push(() => target.close());
      const proxy = await startByteProxy(target.url);
      stops.push(() => proxy.close());
      const dir = mkdtempSync(join(tmpdir(), 'stallscope-noprogress-'));
      stops.push(async () => rmSync(dir, { recursive: true, force: true }));
      const args = [
        ...['--base-url', proxy.url, '--model', MODEL, '--num-prompts', '12', '--max-concurrency', '2'],
        ...['--random-input-len', '8', '--random-output-len', '8', '--extra-body', JSON.stringify(OMNI_BODY)],
        ...['--stop-on', 'no_progress>=2s', '--disable-tqdm', '--save-result', '--result-dir', dir],
        ...['--result-filename', 'r.json'],
        ...(mode === 'keep_alive' ? ['--keep-alive'] : []),
      ];
      const { done } = runBenchChild(args);
      const r = await done;
      const afterStallMs = r.exitedAtMs - proxy.lastDownMs;
      // The figure the design doc quotes (docs/design.md#stop-rules): printed for the record.
      console.log(`no_progress>=2s, 900 s timeout, ${mode}: stall → exit ${Math.round(afterStallMs)} ms`);
      expect(r.code, r.stdout + r.stderr).toBe(3);
      expect(afterStallMs).toBeGreaterThanOrEqual(1990);
      expect(afterStallMs).toBeLessThan(3000);
      const result = JSON.parse(readFileSync(join(dir, 'r.json'), 'utf8'));
      expect(result.stopped_by).toMatchObject({ rule: 'no_progress>=2s' });
      expect(r.stdout).toContain('Stopped by:                              no_progress>=2s at');
    });
});
