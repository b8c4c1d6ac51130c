/**
 * Done means: the target with a hang plan, driven by `stallscope bench
 * --omni-fail-fast-on-timeout`, produces a stall report with the real
 * blocked stack, and the run stops after the first timeout.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { startReproServer } from '#server/repro/server.ts';
import type { WatchdogStallReport } from '#shared/types.ts';
import { MODEL } from '#test/helpers/code2wav.ts';

const root = fileURLToPath(new URL('../../../', import.meta.url));

describe('fail-fast against a hanging target', () => {
  it('reports the blocked hift stack once and stops the run after the first timeout', async () => {
    const reports: WatchdogStallReport[] = [];
    const recovered = new Set<number>();
    const target = await startReproServer({
      tokenRate: 1000,
      faults: ['hift:block:after=3'],
      watchdogTimeoutS: 0.3,
      log: () => undefined,
      onTelemetry: (e) => {
        if (e.type === 'watchdog.stall') reports.push(e.report);
        if (e.type === 'watchdog.recovered') recovered.add(e.opId);
      },
    });
    const dir = mkdtempSync(join(tmpdir(), 'stallscope-ff-'));
    try {
      const t0 = Date.now();
      const child = spawn(
        process.execPath,
        [
          'bin/stallscope.js',
          'bench',
          '--omni',
          '--backend',
          'openai-chat-omni',
          '--base-url',
          target.url,
          '--model',
          MODEL,
          '--dataset-name',
          'random',
          '--random-input-len',
          '8',
          '--random-output-len',
          '8',
          '--num-prompts',
          '12',
          '--max-concurrency',
          '2',
          '--request-rate',
          'inf',
          '--num-warmups',
          '0',
          '--run-id',
          'ff1',
          '--omni-request-timeout-s',
          '2',
          '--omni-fail-fast-on-timeout',
          '--disable-tqdm',
          '--extra-body',
          '{"modalities":["text","audio"],"ignore_eos":true}',
          '--save-result',
          '--result-dir',
          dir,
        ],
        { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] },
      );
      let out = '';
      child.stdout.on('data', (d) => (out += d));
      child.stderr.on('data', (d) => (out += d));
      const code = await new Promise<number | null>((r) => child.on('exit', r));
      const elapsed = Date.now() - t0;
      expect(code, out).toBe(3); // failed_closed
      const result = JSON.parse(
        readFileSync(
          join(
            dir,
            readdirSync(dir).find((f) => f.endsWith('.json'))!,
          ),
          'utf8',
        ),
      );
      expect(result.fail_fast_tripped).toBe(true);
      expect(result.verdict).toBe('failed_closed');
      expect(result.fail_fast_cause).toMatchObject({ kind: 'total' });
      expect(result.not_dispatched_requests, out).toBeGreaterThan(0); // the producer stopped at the trip
      expect(result.completed + result.failed).toBe(12);
      expect(elapsed, out).toBeLessThan(12_000); // a CLI start on a loaded machine takes a few seconds
      // One stall report, from the paused worker, naming the requests the client timed out on.
      // Exactly one report for the hung op. (On a loaded machine an ordinary op may
      // also pause past the timeout: such a report is legitimate and must have recovered.)
      const hung = reports.filter((x) => !recovered.has(x.opId));
      expect(
        hung,
        JSON.stringify(reports.map((x) => [x.opId, x.phase, x.stack[0]?.function, x.stackError])),
      ).toHaveLength(1);
      const r = hung[0];
      expect(r.phase).toBe('hift');
      expect(r.stack[0]).toMatchObject({ function: 'blockOnDeviceSync', language: 'js' });
      expect(r.stack[0].file).toMatch(/server\/repro\/code2wav\/worker\/hang\.ts$/);
      expect(r.capturedAtMs).toBeGreaterThan(r.deadlineMs);
      expect(r.requestIds.every((id) => id.startsWith('ff1-'))).toBe(true);
      // The telemetry joins the client's view: every request of the hung batch ended
      // timed out or cancelled by the breaker, and the cause is a request the target holds.
      const statusOf = (id: string) => result.statuses.at(Number(id.slice('ff1-'.length)));
      for (const id of r.requestIds) expect(['timed_out', 'cancelled_after_timeout']).toContain(statusOf(id));
      expect(statusOf(result.fail_fast_cause.request_id)).toBe('timed_out');
    } finally {
      await target.close();
    }
  });
});
