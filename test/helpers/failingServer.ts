/**
 * A loopback chat server (sseServer.ts) whose requests fail by a rule of
 * their dataset index — every Nth, a seeded fraction, a list — with an HTTP
 * 500; the others stream a short answer. The stop-rule tests compute from
 * the same rule where a run must stop.
 */
import { startSseServer, type Behaviour, type TestServer } from './sseServer.ts';

/** The dataset index of a request id `<prefix>-<index>`. */
export const indexOfId = (requestId: string): number => Number(requestId.split('-').pop());

/** mulberry32: a small seeded generator, so a seed gives the same failures in the test and the server. */
function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Which of `n` requests fail: each with probability `p`, drawn from `seed`. */
export function seededFailures(seed: number, p: number, n: number): boolean[] {
  const next = mulberry32(seed);
  return Array.from({ length: n }, () => next() < p);
}

/** A server failing request i when `fails[i]` (HTTP 500); `ok` for the others (default a 4-token stream). */
export function startFailingServer(
  fails: (index: number) => boolean,
  ok: Behaviour = { kind: 'ok', tokens: 4 },
): Promise<TestServer> {
  return startSseServer((a) => (fails(indexOfId(a.requestId)) ? { kind: 'status', status: 500 } : ok));
}
