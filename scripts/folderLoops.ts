/**
 * Folder loops (run by `npm run lint`, and by test/architecture/folderLoops.test.ts):
 * no folder of shared/, server/ or web/ imports, directly or through other
 * folders, a folder that imports it back — type-only imports included.
 *
 * dependency-cruiser's own folder scope (rule `no-folder-cycles`) cannot see a
 * loop between a folder and its subfolder: it counts a subfolder's files as
 * the parent's and drops every import inside a folder, so
 * `server/repro/code2wav/pool.ts → server/repro/faults.ts → server/repro/code2wav/…`
 * is, for it, one folder importing itself. Here a folder and its subfolder
 * count as two. An import from file f to file g links folder X to folder Y
 * when:
 *   - X holds f (directly or below) and either does not hold g, or holds f
 *     directly (f's own folder);
 *   - Y holds g (directly or below) and either does not hold f, or holds g
 *     directly (g's own folder);
 *   - X ≠ Y.
 * So `code2wav/pool.ts → faults.ts` links `code2wav → repro`, and
 * `faults.ts → code2wav/kernels/rng.ts` links `repro → code2wav/kernels` and
 * `repro → code2wav`: a loop. A parent's files importing its subfolders
 * (and never the other way round) is no loop.
 *
 * A loop is a strongly connected set of more than one folder; it is reported
 * with its folders and every file → file import that links two of them.
 *
 * KNOWN_LOOPS lists loops tolerated while a change breaks them (empty since
 * the renovation broke the last ones): a loop outside it fails, and so does a
 * listed loop that no longer exists, so the list can only shrink.
 */
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { dirname } from 'node:path/posix';
import { fileURLToPath } from 'node:url';
import { cruise, type ICruiseResult } from 'dependency-cruiser';

/** The folders whose loops are refused. */
export const SCOPE = /^(server|shared|web)\//;

/** What the check needs of a cruised module (dependency-cruiser's IModule). */
export interface ModuleImports {
  source: string;
  dependencies: ReadonlyArray<{ resolved: string; coreModule?: boolean; couldNotResolve?: boolean }>;
}

export interface FolderLoop {
  /** The folders of the loop, sorted. */
  folders: string[];
  /** Every import linking two folders of the loop, as `from folder → to folder: file → file`, sorted. */
  edges: string[];
}

/** The folders holding `file`, its own first: `a/b/c.ts` → `a/b`, `a`. */
function foldersOf(file: string): string[] {
  const out: string[] = [];
  for (let dir = dirname(file); dir !== '.' && dir !== '/'; dir = dirname(dir)) out.push(dir);
  return out;
}

const holds = (folder: string, file: string) => file.startsWith(`${folder}/`);

/** The folders an import `from → to` links, as [X, Y] pairs (see the header). */
export function linkedFolders(from: string, to: string): Array<[string, string]> {
  const xs = foldersOf(from).filter((x, i) => i === 0 || !holds(x, to));
  const ys = foldersOf(to).filter((y, i) => i === 0 || !holds(y, from));
  return xs.flatMap((x) => ys.filter((y) => y !== x).map((y): [string, string] => [x, y]));
}

/** The folder graph: folder → folder → the file imports linking them. */
function folderGraph(modules: readonly ModuleImports[], scope: RegExp): Map<string, Map<string, string[]>> {
  const graph = new Map<string, Map<string, string[]>>();
  for (const m of modules) {
    if (!scope.test(m.source)) continue;
    for (const d of m.dependencies) {
      if (d.coreModule || d.couldNotResolve || !scope.test(d.resolved)) continue;
      for (const [x, y] of linkedFolders(m.source, d.resolved)) {
        if (!graph.has(y)) graph.set(y, new Map());
        const out = graph.get(x) ?? graph.set(x, new Map()).get(x)!;
        const files = out.get(y) ?? out.set(y, []).get(y)!;
        const edge = `${m.source} → ${d.resolved}`;
        if (!files.includes(edge)) files.push(edge);
      }
    }
  }
  return graph;
}

/** Tarjan's strongly connected components of more than one node. */
function components(graph: Map<string, Map<string, string[]>>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (v: string) => {
    index.set(v, index.size);
    low.set(v, index.get(v)!);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v)!.keys()) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) !== index.get(v)) return;
    const component: string[] = [];
    let w: string;
    do {
      w = stack.pop()!;
      onStack.delete(w);
      component.push(w);
    } while (w !== v);
    if (component.length > 1) found.push(component.sort());
  };
  for (const v of [...graph.keys()].sort()) if (!index.has(v)) visit(v);
  return found;
}

/** The folder loops of a module graph (dependency-cruiser's `modules`), sorted by their first folder. */
export function folderLoops(modules: readonly ModuleImports[], scope: RegExp = SCOPE): FolderLoop[] {
  const graph = folderGraph(modules, scope);
  return components(graph)
    .map((folders) => {
      const inLoop = new Set(folders);
      const edges = folders.flatMap((x) =>
        [...graph.get(x)!]
          .filter(([y]) => inLoop.has(y))
          .flatMap(([y, files]) => files.map((f) => `${x} → ${y}: ${f}`)),
      );
      return { folders, edges: edges.sort() };
    })
    .sort((a, b) => a.folders[0].localeCompare(b.folders[0]));
}

/**
 * The loops that remain, by their folders (sorted, joined with ` ⇄ `), each
 * for its owner to break. This list must end empty.
 */
export const KNOWN_LOOPS: readonly string[] = [];

/** The loop's name in KNOWN_LOOPS. */
export const loopName = (loop: FolderLoop) => loop.folders.join(' ⇄ ');

/** What fails: loops not in `known`, and entries of `known` that are no loop anymore. */
export function unexpected(loops: readonly FolderLoop[], known: readonly string[]): string[] {
  const names = new Set(loops.map(loopName));
  return [
    ...loops
      .filter((l) => !known.includes(loopName(l)))
      .map((l) => [`folder loop: ${loopName(l)}`, ...l.edges.map((e) => `  ${e}`)].join('\n')),
    ...known.filter((k) => !names.has(k)).map((k) => `listed in KNOWN_LOOPS but no loop anymore: ${k}`),
  ];
}

/**
 * The folder loops of the tree at `baseDir` (shared/, server/, web/), cruised
 * with the options of `root`'s `.dependency-cruiser.cjs` and tsconfig.json.
 */
export async function treeFolderLoops(root: string, baseDir = root): Promise<FolderLoop[]> {
  type CruiseOptions = NonNullable<Parameters<typeof cruise>[1]>;
  const { options } = createRequire(import.meta.url)(join(root, '.dependency-cruiser.cjs')) as {
    options: CruiseOptions & { enhancedResolveOptions: Parameters<typeof cruise>[2] };
  };
  const { output } = await cruise(
    ['shared', 'server', 'web'],
    {
      baseDir,
      tsPreCompilationDeps: options.tsPreCompilationDeps,
      doNotFollow: options.doNotFollow,
      exclude: options.exclude,
    },
    options.enhancedResolveOptions,
    { tsConfig: { fileName: join(root, 'tsconfig.json') } },
  );
  return folderLoops((output as ICruiseResult).modules);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const loops = await treeFolderLoops(fileURLToPath(new URL('..', import.meta.url)));
  for (const l of loops.filter((l) => KNOWN_LOOPS.includes(loopName(l)))) {
    console.warn(`folder loop (known, to break): ${loopName(l)}\n${l.edges.map((e) => `  ${e}`).join('\n')}`);
  }
  const problems = unexpected(loops, KNOWN_LOOPS);
  for (const p of problems) console.error(p);
  console.log(problems.length ? `✖ ${problems.length} folder loop problem(s)` : '✔ no new folder loops');
  process.exitCode = problems.length ? 1 : 0;
}
