import { describe, expect, it } from 'vitest';
import { fullGc, settleBackground } from '#server/engine/warmup/settle.ts';

/**
 * A fake process on its own clock: background work at `coreShare` of one
 * core until `busyUntilMs`, then nothing; each sleep advances the clock by
 * the window plus `lateMs` (a timer fires late on a busy machine).
 */
function fakeProcess(busyUntilMs: number, coreShare = 1, lateMs = 0) {
  let t = 0;
  return {
    gc: () => undefined,
    now: () => t,
    cpuUs: () => Math.min(t, busyUntilMs) * 1000 * coreShare,
    sleep: (ms: number) => {
      t += ms + lateMs;
      return Promise.resolve();
    },
  };
}

describe('settleBackground: waits for the background threads the warm-up set to work', () => {
  it('returns after the work ended and two windows in a row were quiet', async () => {
    const r = await settleBackground({ windowMs: 10, maxMs: 1_000, ...fakeProcess(60) });
    expect(r).toEqual({ quiet: true, waitedMs: 80 });
  });

  it('a window that is only partly busy is not quiet', async () => {
    // Busy until 65: the window 60–70 carries 5 ms of a core (half), so 70–80 and 80–90 are the quiet two.
    const r = await settleBackground({ windowMs: 10, maxMs: 1_000, ...fakeProcess(65) });
    expect(r).toEqual({ quiet: true, waitedMs: 90 });
  });

  it('a quiet process waits two windows', async () => {
    expect(await settleBackground({ windowMs: 10, maxMs: 1_000, ...fakeProcess(0) })).toEqual({
      quiet: true,
      waitedMs: 20,
    });
  });

  it('a fifth of a core is the line: 15 % is quiet, 25 % is not', async () => {
    expect((await settleBackground({ windowMs: 10, maxMs: 200, ...fakeProcess(1e9, 0.15) })).quiet).toBe(true);
    expect((await settleBackground({ windowMs: 10, maxMs: 200, ...fakeProcess(1e9, 0.25) })).quiet).toBe(false);
  });

  it('the rate is per elapsed time: a late timer does not make a busy window look quiet', async () => {
    // Windows of 10 ms that really last 40 ms at a whole core: still busy.
    expect((await settleBackground({ windowMs: 10, maxMs: 200, ...fakeProcess(1e9, 1, 30) })).quiet).toBe(false);
  });

  it('collects garbage once, before the first window', async () => {
    const calls: string[] = [];
    const p = fakeProcess(0);
    await settleBackground({
      windowMs: 10,
      maxMs: 1_000,
      ...p,
      gc: () => calls.push('gc'),
      sleep: (ms) => {
        calls.push('sleep');
        return p.sleep(ms);
      },
    });
    expect(calls).toEqual(['gc', 'sleep', 'sleep']);
  });

  it("the run's interrupt ends the wait at the next window", async () => {
    const stop = new AbortController();
    const p = fakeProcess(1e9); // never quiet
    const r = await settleBackground({
      windowMs: 10,
      maxMs: 1_000,
      ...p,
      signal: stop.signal,
      sleep: (ms) => {
        if (p.now() >= 30) stop.abort();
        return p.sleep(ms);
      },
    });
    expect(r).toEqual({ quiet: false, waitedMs: 40 });
  });

  it('is bounded: a process that never goes quiet starts the run at maxMs', async () => {
    expect(await settleBackground({ windowMs: 10, maxMs: 100, ...fakeProcess(1e9) })).toEqual({
      quiet: false,
      waitedMs: 100,
    });
  });
});

describe('fullGc', () => {
  it('collects an unreachable object (a full collection, without --expose-gc on the command line)', async () => {
    const ref = new WeakRef({ payload: new Array(1000).fill(1) });
    // deref() keeps its target alive until the end of the current job: each check in a job of its own.
    const nextJob = (): Promise<unknown> => new Promise((resolve) => setImmediate(resolve));
    await nextJob();
    const aliveBefore = ref.deref() !== undefined; // nothing collected it by itself in between
    await nextJob();
    fullGc();
    expect({ aliveBefore, aliveAfter: ref.deref() !== undefined }).toEqual({ aliveBefore: true, aliveAfter: false });
  });
});
