/**
 * No folder loops (scripts/folderLoops.ts, also run by `npm run lint`): no
 * folder of shared/, server/ or web/ imports, directly or through other
 * folders, a folder that imports it back; a folder and its subfolder count as
 * two, type-only imports count. Here the check runs on the real tree (only the
 * loops still listed in KNOWN_LOOPS, each still there), and on small trees:
 * one with a folder ⇄ subfolder loop and a root file ⇄ folder loop, written with type-only imports, and
 * one where parents import their subfolders and nothing imports back.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cruise, type ICruiseResult } from 'dependency-cruiser';
import {
  KNOWN_LOOPS,
  folderLoops,
  linkedFolders,
  treeFolderLoops,
  unexpected,
  type ModuleImports,
} from '../../scripts/folderLoops.ts';

const root = resolve(import.meta.dirname, '../..');
const scratch = mkdtempSync(join(tmpdir(), 'stallscope-folderloops-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** Writes a tree under a fresh folder of scratch and returns that folder. */
function tree(name: string, files: Record<string, string>): string {
  for (const [rel, text] of Object.entries(files)) {
    mkdirSync(dirname(join(scratch, name, rel)), { recursive: true });
    writeFileSync(join(scratch, name, rel), text);
  }
  return join(scratch, name);
}

/** A module that imports only types from `specs` (relative specifiers). */
function typesFrom(...specs: string[]): string {
  const lines = specs.map((spec, i) => `import type { T as T${i} } from '${spec}';`);
  return `${lines.join('\n')}\nexport type T = [${specs.map((_, i) => `T${i}`).join(', ') || 'number'}];\n`;
}

/** The modules of a graph given as `from -> [to, ...]`. */
function modules(graph: Record<string, string[]>): ModuleImports[] {
  return Object.entries(graph).map(([source, to]) => ({ source, dependencies: to.map((resolved) => ({ resolved })) }));
}

/** Two loops: code2wav/pool.ts → faults.ts → code2wav/kernels/, and engine root ⇄ dispatch/. */
const LOOPS = {
  'server/repro/code2wav/pool.ts': typesFrom('../faults.ts'),
  'server/repro/faults.ts': typesFrom('./code2wav/kernels/rng.ts'),
  'server/repro/code2wav/kernels/rng.ts': typesFrom(),
  'server/engine/dispatch.ts': typesFrom('./dispatch/runStop.ts'),
  'server/engine/dispatch/runStop.ts': typesFrom('../events.ts'),
  'server/engine/events.ts': typesFrom(),
  // Loop-free: the root composes its subfolders, a subfolder uses its sibling.
  'web/app.ts': typesFrom('./pages/page.ts', './lib/format.ts'),
  'web/pages/page.ts': typesFrom('../lib/format.ts', '../../shared/rules.ts'),
  'web/lib/format.ts': typesFrom('../../shared/rules.ts'),
  'shared/rules.ts': typesFrom(),
};

describe('folder loops', () => {
  it('the tree has none but those KNOWN_LOOPS lists, and each of those is still there', async () => {
    expect(unexpected(await treeFolderLoops(root), KNOWN_LOOPS)).toEqual([]);
  }, 60_000);

  it('sees a folder ⇄ subfolder loop through a parent file, and a root file ⇄ folder loop, type-only', async () => {
    expect(await treeFolderLoops(root, tree('loops', LOOPS))).toEqual([
      {
        folders: ['server/engine', 'server/engine/dispatch'],
        edges: [
          'server/engine → server/engine/dispatch: server/engine/dispatch.ts → server/engine/dispatch/runStop.ts',
          'server/engine/dispatch → server/engine: server/engine/dispatch/runStop.ts → server/engine/events.ts',
        ],
      },
      {
        // faults.ts also links server/repro → code2wav/kernels, which imports nothing back: not in the loop.
        folders: ['server/repro', 'server/repro/code2wav'],
        edges: [
          'server/repro → server/repro/code2wav: server/repro/faults.ts → server/repro/code2wav/kernels/rng.ts',
          'server/repro/code2wav → server/repro: server/repro/code2wav/pool.ts → server/repro/faults.ts',
        ],
      },
    ]);
  }, 60_000);

  it("is needed: dependency-cruiser's folder scope (no-folder-cycles) does not see those loops", async () => {
    const { output } = await cruise(['server'], {
      baseDir: join(scratch, 'loops'),
      tsPreCompilationDeps: true,
      validate: true,
      ruleSet: { forbidden: [{ name: 'folders', scope: 'folder', from: {}, to: { circular: true } }] },
    });
    expect((output as ICruiseResult).summary.violations).toEqual([]);
  }, 60_000);

  it('sees a loop through a file directly in the subfolder', () => {
    const graph = {
      'server/repro/code2wav/pool.ts': ['server/repro/faults.ts'],
      'server/repro/faults.ts': ['server/repro/code2wav/x.ts'],
    };
    expect(folderLoops(modules(graph)).map((l) => l.folders)).toEqual([['server/repro', 'server/repro/code2wav']]);
  });

  it('reports no loop when parents import their subfolders and nothing imports back', () => {
    const graph = {
      'server/repro/server.ts': ['server/repro/routes/chat.ts', 'server/repro/code2wav/pool.ts', 'shared/errors.ts'],
      'server/repro/routes/chat.ts': ['server/repro/requests/chatRequest.ts', 'server/repro/code2wav/kernels/wav.ts'],
      'server/repro/code2wav/pool.ts': ['server/repro/code2wav/faults.ts', 'server/repro/watchdog/progress.ts'],
      'server/repro/code2wav/faults.ts': ['server/repro/code2wav/kernels/rng.ts', 'shared/errors.ts'],
      'server/repro/code2wav/worker/entry.ts': ['server/repro/watchdog/progress.ts'],
    };
    expect(folderLoops(modules(graph))).toEqual([]);
  });

  it('counts only folders that hold one end of an import, or the file itself', () => {
    expect(linkedFolders('a/b/p.ts', 'a/q.ts')).toEqual([['a/b', 'a']]);
    expect(linkedFolders('a/q.ts', 'a/b/c/r.ts')).toEqual([
      ['a', 'a/b/c'],
      ['a', 'a/b'],
    ]);
    expect(linkedFolders('a/x/p.ts', 'b/q.ts')).toEqual([
      ['a/x', 'b'],
      ['a', 'b'],
    ]);
    expect(linkedFolders('a/p.ts', 'a/q.ts')).toEqual([]);
  });

  it('fails on a loop KNOWN_LOOPS does not list, and on a listed loop that is gone', () => {
    const loops = folderLoops(
      modules({ 'a/b/p.ts': ['a/q.ts'], 'a/q.ts': ['a/b/r.ts'], 'c/d/p.ts': ['c/q.ts'], 'c/q.ts': ['c/d/r.ts'] }),
      /./,
    );
    expect(unexpected(loops, ['a ⇄ a/b', 'c ⇄ c/d'])).toEqual([]);
    expect(unexpected(loops, ['a ⇄ a/b', 'c ⇄ c/d', 'e ⇄ e/f'])).toEqual([
      'listed in KNOWN_LOOPS but no loop anymore: e ⇄ e/f',
    ]);
    expect(unexpected(loops, ['c ⇄ c/d'])).toEqual([
      'folder loop: a ⇄ a/b\n  a → a/b: a/q.ts → a/b/r.ts\n  a/b → a: a/b/p.ts → a/q.ts',
    ]);
  });
});
