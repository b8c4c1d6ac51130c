/**
 * How the PostgreSQL writer splits a batch the database refused (pg/pgBatches.ts): per run first, then halves of
 * one run in order, the ops after the events each alone — down to one event or one op, which alone is dropped.
 */
import { describe, expect, it } from 'vitest';
import { newBatch, splitRefused, subtractDrops, type QueuedOp } from '#server/dashboard/store/pg/pgBatches.ts';
import type { Drops } from '#server/dashboard/store/pg/pgBatchSql.ts';

const ev = (runId: string, n: number) => ({ runId, json: String(n), effects: {}, queuedAtMs: 0 });
const op = (): QueuedOp => ({ run: async () => undefined, done: () => undefined, failed: () => undefined });
const shape = (parts: ReturnType<typeof splitRefused>) =>
  parts.map((p) => [p.events.map((e) => `${e.runId}${e.json}`).join(','), p.ops.length]);

describe('splitting a refused batch', () => {
  it('per run, then halves in order, ops last and alone; one event or one op is not split', () => {
    const [o1, o2] = [op(), op()];
    expect(shape(splitRefused(newBatch([ev('a', 1), ev('b', 2), ev('a', 3)], [o1])))).toEqual([
      ['a1,a3', 0],
      ['b2', 0],
      ['', 1],
    ]);
    expect(
      shape(
        splitRefused(
          newBatch(
            [1, 2, 3, 4, 5].map((n) => ev('a', n)),
            [],
          ),
        ),
      ),
    ).toEqual([
      ['a1,a2,a3', 0],
      ['a4,a5', 0],
    ]);
    expect(shape(splitRefused(newBatch([ev('a', 1)], [o1, o2])))).toEqual([
      ['a1', 0],
      ['', 1],
      ['', 1],
    ]);
    expect(shape(splitRefused(newBatch([], [o1, o2])))).toEqual([
      ['', 1],
      ['', 1],
    ]);
    expect(splitRefused(newBatch([ev('a', 1)], []))).toEqual([]);
    expect(splitRefused(newBatch([], [o1]))).toEqual([]);
    // Each part is a batch of its own: a new id, so a lost COMMIT answer is looked up for that part only.
    const parts = splitRefused(newBatch([ev('a', 1), ev('b', 2)], []));
    expect(new Set(parts.map((p) => p.id)).size).toBe(2);
  });

  it('counts drops written by a committed batch off the pending ones, keeping those counted since', () => {
    const drops: Drops = new Map([
      ['a', { n: 3, error: 'x' }],
      ['b', { n: 1, error: 'y' }],
    ]);
    subtractDrops(
      drops,
      new Map([
        ['a', { n: 2, error: 'x' }],
        ['b', { n: 1, error: 'y' }],
      ]),
    );
    expect([...drops]).toEqual([['a', { n: 1, error: 'x' }]]);
  });
});
