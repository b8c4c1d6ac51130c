/**
 * ARCHITECTURE.md's map matches the tree one to one: every folder under
 * server/, shared/ and web/ (at any depth) and every top folder of test/ is
 * named there, with its full path in backticks (`server/engine/transport/http/`), and
 * every path it names in backticks — folder or file — exists. So a folder
 * added, moved or removed without a word in the map fails here.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = resolve(import.meta.dirname, '../..');
/** Folders the map must name: each root with how deep under it (Infinity: all). */
const MAPPED: Array<[string, number]> = [
  ['server', Infinity],
  ['shared', Infinity],
  ['web', Infinity],
  ['test', 1],
];
/** Paths in backticks that the map may name, checked to exist. */
const NAMED = /`((?:server|shared|web|test|scripts|bin|docs)\/[^`\s*{}<>]*)`/g;

function folders(dir: string, depth: number): string[] {
  if (depth === 0) return [];
  return readdirSync(join(root, dir))
    .filter((name) => statSync(join(root, dir, name)).isDirectory())
    .flatMap((name) => [`${dir}/${name}/`, ...folders(`${dir}/${name}`, depth - 1)]);
}

/** Full paths in backticks: folders end in a slash. */
function namedPaths(markdown: string): string[] {
  return [...markdown.matchAll(NAMED)].map((m) => m[1]);
}

/** Folders of the tree the map does not name, and paths the map names that do not exist. */
function mismatches(markdown: string, tree: string[], exists: (path: string) => boolean): string[] {
  const named = namedPaths(markdown);
  const namedSet = new Set(named);
  const missing = tree.filter((f) => !namedSet.has(f)).map((f) => `${f} is not named in ARCHITECTURE.md`);
  const stale = [...new Set(named)]
    .filter((p) => !exists(p))
    .map((p) => `ARCHITECTURE.md names ${p}, which does not exist`);
  return [...missing, ...stale];
}

const tree = MAPPED.flatMap(([dir, depth]) => [`${dir}/`, ...folders(dir, depth)]);
const exists = (p: string): boolean => existsSync(join(root, p));

describe("ARCHITECTURE.md's map", () => {
  it('names every folder of server/, shared/, web/ and the top of test/, and names nothing that does not exist', () => {
    expect(mismatches(readFileSync(join(root, 'ARCHITECTURE.md'), 'utf8'), tree, exists)).toEqual([]);
  });

  it('the check sees a folder left out and a folder that is gone', () => {
    const map = '- `server/engine/` — the engine\n- `server/gone/` — moved away\n- `web/` and `web/App.tsx`';
    expect(mismatches(map, ['server/engine/', 'server/engine/transport/http/', 'web/'], exists)).toEqual([
      'server/engine/transport/http/ is not named in ARCHITECTURE.md',
      'ARCHITECTURE.md names server/gone/, which does not exist',
    ]);
  });

  it('walks the real tree deep enough to see the nested folders', () => {
    expect(tree).toContain('server/engine/probes/serverStacks/');
    expect(tree).toContain('server/repro/code2wav/worker/');
    expect(tree).toContain('test/fixtures/');
    expect(tree).not.toContain('test/fixtures/golden/');
  });
});
