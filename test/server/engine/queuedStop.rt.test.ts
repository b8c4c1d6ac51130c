/**
 * A run that queued 200,000 requests (rate inf, 10 slots) and is then
 * interrupted: the queue costs a few bytes per request, the
 * unsent requests have no record each (a few bytes in the request
 * table's columns), and the stop ends them together in one event without
 * blocking the event loop, so the dashboard's shutdown deadline (a timer)
 * can fire whatever the run's size.
 * Measured in a child process with --expose-gc (queuedStop.child.ts).
 */
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';

const N = 200_000;
interface Figures {
  queuedPerRequest: number;
  endedPerRequest: number;
  stopMs: number;
  maxLagMs: number;
  arrivalLagMs: number;
  counts: Record<string, number>;
  bulk: [number, number, string][];
  unsent: number;
  interrupted: boolean;
}
let f: Figures;

beforeAll(() => {
  const child = fileURLToPath(new URL('./queuedStop.child.ts', import.meta.url));
  const out = execFileSync(process.execPath, ['--expose-gc', '--import', 'tsx', child, String(N)], {
    encoding: 'utf8',
    timeout: 30_000,
  });
  f = JSON.parse(out.trim().split('\n').at(-1)!) as Figures;
}, 40_000);

describe(`${N.toLocaleString('en')} queued requests, then an interrupt`, () => {
  it('every one ends unsent, all reported in one event (the 10 given a slot, one each)', () => {
    expect(f.interrupted).toBe(true);
    expect(f.unsent).toBe(N);
    expect(f.counts['request.queued']).toBe(N);
    // The 10 in a slot were prepared, then not sent: each its own event; the rest are one range.
    expect(f.counts['request.unsent']).toBe(10);
    expect(f.bulk).toEqual([[10, N, 'interrupt']]);
  });

  it('heap per request stays small while queued and once ended (before: ~965 B queued, ~369 B ended, then ~40 B)', () => {
    // What is left is the queue's and the request table's columns: a few bytes.
    expect(f.queuedPerRequest).toBeLessThan(150);
    expect(f.endedPerRequest).toBeLessThan(150);
  });

  it('stops within a bound and never blocks the event loop for long (before: blocked 0.4–1.2 s, the whole stop)', () => {
    expect(f.stopMs).toBeLessThan(2_000);
    expect(f.maxLagMs).toBeLessThan(250);
  });

  it('arrivals due at once do not block the event loop either (a signal is heard while they queue; before: blocked ~0.6 s)', () => {
    expect(f.arrivalLagMs).toBeLessThan(250);
  });
});
