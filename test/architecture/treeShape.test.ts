/**
 * The tree's shape stays readable: a folder's top holds at most so many
 * entries, so a new file goes into the folder of its topic (ARCHITECTURE.md,
 * "where does a new … go") instead of piling up at the top.
 */
import { readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = resolve(import.meta.dirname, '../..');

/** Entries (files and folders) at a folder's top. */
function entries(dir: string): string[] {
  return readdirSync(join(root, dir));
}

/** Files (not folders) at a folder's top. */
function looseFiles(dir: string): string[] {
  return readdirSync(join(root, dir), { withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => e.name);
}

/** The folders over their bound, as `dir: n > max`. */
export function overBound(limits: Array<[string, number]>, list: (dir: string) => string[]): string[] {
  return limits.flatMap(([dir, max]) => {
    const n = list(dir).length;
    return n > max ? [`${dir}: ${n} entries > ${max}`] : [];
  });
}

describe('the shape of the tree', () => {
  it('shared/ has at most 15 entries at its top', () => {
    expect(overBound([['shared', 15]], entries)).toEqual([]);
  });

  it('server/engine has at most 8 loose files at its root', () => {
    expect(overBound([['server/engine', 8]], looseFiles)).toEqual([]);
  });

  it('the check sees a folder over its bound', () => {
    const list = (dir: string) => (dir === 'a' ? ['1', '2', '3'] : ['1']);
    expect(
      overBound(
        [
          ['a', 2],
          ['b', 2],
        ],
        list,
      ),
    ).toEqual(['a: 3 entries > 2']);
  });
});
