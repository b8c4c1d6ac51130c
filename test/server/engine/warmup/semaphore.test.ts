import { describe, expect, it } from 'vitest';
import { Semaphore } from '#server/engine/warmup/semaphore.ts';

describe('Semaphore', () => {
  it('admits FIFO as slots free up', async () => {
    const s = new Semaphore(2);
    const order: number[] = [];
    await s.acquire();
    await s.acquire();
    const ps = [1, 2, 3].map((i) => s.acquire().then(() => order.push(i)));
    expect(s.waiting).toBe(3);
    s.release();
    s.release();
    s.release();
    await Promise.all(ps);
    expect(order).toEqual([1, 2, 3]);
  });

  it('unbounded never waits', async () => {
    const s = new Semaphore(null);
    for (let i = 0; i < 1000; i++) await s.acquire();
    expect(s.waiting).toBe(0);
  });

  it('an aborted waiter leaves the queue; rejectAll empties it', async () => {
    const s = new Semaphore(1);
    await s.acquire();
    const c = new AbortController();
    const a = s.acquire(c.signal);
    const b = s.acquire();
    c.abort(new Error('gone'));
    await expect(a).rejects.toThrow('gone');
    expect(s.waiting).toBe(1);
    s.rejectAll(new Error('stop'));
    await expect(b).rejects.toThrow('stop');
    expect(s.waiting).toBe(0);
  });

  it('stays FIFO over thousands of waiters with holes from aborted ones', async () => {
    const s = new Semaphore(1);
    await s.acquire();
    const order: number[] = [];
    const ctrls: AbortController[] = [];
    const ps = Array.from({ length: 3000 }, (_, i) => {
      const c = new AbortController();
      ctrls.push(c);
      return s.acquire(c.signal).then(
        () => {
          order.push(i);
          s.release();
        },
        () => undefined,
      );
    });
    for (let i = 0; i < 3000; i += 3) ctrls[i].abort(new Error('gone'));
    expect(s.waiting).toBe(2000);
    s.release();
    await Promise.all(ps);
    expect(order).toEqual(Array.from({ length: 3000 }, (_, i) => i).filter((i) => i % 3 !== 0));
  });
});
