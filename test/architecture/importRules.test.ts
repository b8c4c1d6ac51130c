/**
 * The import rules of ARCHITECTURE.md are dependency-cruiser's rules
 * (.dependency-cruiser.cjs), run by `npm run lint`. Here the same rule set is
 * run twice through dependency-cruiser's API: on the real tree (no
 * violations), and on a small tree that breaks each rule once, so a rule that
 * silently stopped matching (a renamed folder, a typo in a path pattern)
 * fails this test instead of passing everything. Every rule of the config
 * needs its breaking case below: a rule added without one fails the test.
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cruise, type ICruiseResult } from 'dependency-cruiser';

const root = resolve(import.meta.dirname, '../..');
type CruiseOptions = NonNullable<Parameters<typeof cruise>[1]>;
const config = createRequire(import.meta.url)(join(root, '.dependency-cruiser.cjs')) as {
  forbidden: NonNullable<NonNullable<CruiseOptions['ruleSet']>['forbidden']>;
  options: CruiseOptions & { enhancedResolveOptions: Parameters<typeof cruise>[2] };
};

async function violations(baseDir: string, dirs: string[]): Promise<string[]> {
  const { output } = await cruise(
    dirs,
    {
      baseDir,
      ruleSet: { forbidden: config.forbidden },
      validate: true,
      tsPreCompilationDeps: true,
      doNotFollow: config.options.doNotFollow,
      exclude: config.options.exclude,
    },
    config.options.enhancedResolveOptions,
    { tsConfig: { fileName: join(root, 'tsconfig.json') } },
  );
  const result = output as ICruiseResult;
  return (result.summary.violations ?? []).map((v) => `${v.rule.name}: ${v.from} -> ${v.to}`);
}

/** A module that imports `from` each of `imports` (relative specifiers) and exports one value. */
function importing(...imports: string[]): string {
  const lines = imports.map((spec, i) => `import * as m${i} from '${spec}';`);
  return `${lines.join('\n')}\nexport const v = [${imports.map((_, i) => `m${i}`).join(', ')}];\n`;
}
const LEAF = 'export const v = 1;\n';
/** A package in the small tree's node_modules (the rules on the database drivers match where they resolve). */
const fakePackage = (name: string) => ({
  [`node_modules/${name}/package.json`]: JSON.stringify({ name, main: 'index.js' }),
  [`node_modules/${name}/index.js`]: 'module.exports = {};\n',
});

/**
 * One breaking case per rule: the files that break it (path -> text) and the
 * violations it must report (a folder cycle is reported from both folders).
 * Files that only stand as import targets are leaves.
 */
const CASES: Record<string, { files: Record<string, string>; violations: string[] }> = {
  'no-circular': {
    files: { 'shared/a.ts': importing('./b.ts'), 'shared/b.ts': importing('./a.ts') },
    violations: ['shared/a.ts -> shared/b.ts'],
  },
  'no-folder-cycles': {
    // Two folders that import each other through different files: no file cycle.
    files: {
      'server/repro/x/p.ts': importing('../y/q.ts'),
      'server/repro/y/q.ts': LEAF,
      'server/repro/y/r.ts': importing('../x/s.ts'),
      'server/repro/x/s.ts': LEAF,
    },
    violations: ['server/repro/x -> server/repro/y', 'server/repro/y -> server/repro/x'],
  },
  'shared-is-self-contained': {
    files: { 'shared/usesServer.ts': importing('../server/t.ts'), 'server/t.ts': LEAF },
    violations: ['shared/usesServer.ts -> server/t.ts'],
  },
  'shared-no-node-builtins': {
    files: { 'shared/fsUser.ts': importing('node:fs') },
    violations: ['shared/fsUser.ts -> fs'],
  },
  'web-only-shared': {
    // server/common is every server program's, not the browser's.
    files: { 'web/w.ts': importing('../server/common/c.ts'), 'server/common/c.ts': LEAF },
    violations: ['web/w.ts -> server/common/c.ts'],
  },
  'common-only-shared': {
    files: { 'server/common/usesEngine.ts': importing('../engine/e.ts'), 'server/engine/e.ts': LEAF },
    violations: ['server/common/usesEngine.ts -> server/engine/e.ts'],
  },
  'engine-allow-list': {
    files: { 'server/engine/usesHub.ts': importing('../dashboard/hub/hub.ts'), 'server/dashboard/hub/hub.ts': LEAF },
    violations: ['server/engine/usesHub.ts -> server/dashboard/hub/hub.ts'],
  },
  'engine-core-no-probes': {
    files: {
      'server/engine/core.ts': importing('./probes/p/probe.ts'),
      'server/engine/probes/p/probe.ts': LEAF,
    },
    violations: ['server/engine/core.ts -> server/engine/probes/p/probe.ts'],
  },
  'transport-owns-the-network': {
    // A socket opened outside the seam, and a type taken from node:http outside it.
    files: {
      'server/engine/dispatch/d.ts': importing('node:net'),
      'server/engine/run/r.ts': "import type { IncomingMessage } from 'node:http';\nexport type M = IncomingMessage;\n",
      'server/engine/transport/h1/c.ts': importing('node:tls'),
    },
    violations: ['server/engine/dispatch/d.ts -> net', 'server/engine/run/r.ts -> http'],
  },
  'engine-through-the-seam': {
    // The engine reaches h1/ past the seam; through index.ts it may.
    files: {
      'server/engine/backends/b.ts': importing('../transport/h1/connection.ts', '../transport/index.ts'),
      'server/engine/transport/h1/connection.ts': LEAF,
      'server/engine/transport/index.ts': importing('./h1/connection.ts'),
    },
    violations: ['server/engine/backends/b.ts -> server/engine/transport/h1/connection.ts'],
  },
  'repro-allow-list': {
    files: { 'server/repro/usesEngine.ts': importing('../engine/e.ts'), 'server/engine/e.ts': LEAF },
    violations: ['server/repro/usesEngine.ts -> server/engine/e.ts'],
  },
  'dashboard-allow-list': {
    // Outside its run manager, the dashboard does not reach the engine.
    files: { 'server/dashboard/routes/usesEngine.ts': importing('../../engine/e.ts'), 'server/engine/e.ts': LEAF },
    violations: ['server/dashboard/routes/usesEngine.ts -> server/engine/e.ts'],
  },
  'dashboard-runs-allow-list': {
    files: {
      'server/dashboard/runs/usesRepro.ts': importing('../../repro/server.ts'),
      'server/repro/server.ts': LEAF,
    },
    violations: ['server/dashboard/runs/usesRepro.ts -> server/repro/server.ts'],
  },
  'cli-allow-list': {
    files: { 'server/cli/usesWeb.ts': importing('../../web/page.ts'), 'web/page.ts': LEAF },
    violations: ['server/cli/usesWeb.ts -> web/page.ts'],
  },
  'bin-only-dist': {
    files: { 'bin/run.js': importing('../server/cli/main.ts'), 'server/cli/main.ts': LEAF },
    violations: ['bin/run.js -> server/cli/main.ts'],
  },
  'worker-without-fastify': {
    files: {
      'server/repro/code2wav/worker/entry.ts': importing('../../routes/chat.ts'),
      'server/repro/routes/chat.ts': LEAF,
    },
    violations: ['server/repro/code2wav/worker/entry.ts -> server/repro/routes/chat.ts'],
  },
  'store-below-hub': {
    files: { 'server/dashboard/store/db.ts': importing('../hub/hub.ts'), 'server/dashboard/hub/hub.ts': LEAF },
    violations: ['server/dashboard/store/db.ts -> server/dashboard/hub/hub.ts'],
  },
  'sqlite-driver-in-sqlite-store': {
    // Code both stores share would pull the SQLite driver into a PostgreSQL dashboard.
    files: {
      'server/dashboard/store/common/usesSqlite.ts': importing('better-sqlite3'),
      ...fakePackage('better-sqlite3'),
    },
    violations: ['server/dashboard/store/common/usesSqlite.ts -> node_modules/better-sqlite3/index.js'],
  },
  'pg-driver-in-pg-store': {
    files: { 'server/dashboard/store/sqlite/usesPg.ts': importing('pg'), ...fakePackage('pg') },
    violations: ['server/dashboard/store/sqlite/usesPg.ts -> node_modules/pg/index.js'],
  },
  'stores-apart': {
    files: {
      'server/dashboard/store/pg/usesSqlite.ts': importing('../sqlite/rows.ts'),
      'server/dashboard/store/sqlite/rows.ts': LEAF,
    },
    violations: ['server/dashboard/store/pg/usesSqlite.ts -> server/dashboard/store/sqlite/rows.ts'],
  },
  'worker-messages-internal': {
    // The CLI may import any program, but not the worker's message union.
    files: {
      'server/cli/usesMessages.ts': importing('../repro/code2wav/worker/messages.ts'),
      'server/repro/code2wav/worker/messages.ts': LEAF,
    },
    violations: ['server/cli/usesMessages.ts -> server/repro/code2wav/worker/messages.ts'],
  },
};

const scratch = mkdtempSync(join(tmpdir(), 'stallscope-depcruise-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

function put(rel: string, text: string): void {
  mkdirSync(dirname(join(scratch, rel)), { recursive: true });
  writeFileSync(join(scratch, rel), text);
}

describe('import rules (dependency-cruiser)', () => {
  it('the tree breaks none of them', async () => {
    expect(await violations(root, ['shared', 'server', 'web', 'bin', 'test'])).toEqual([]);
  }, 60_000);

  it('every rule of the config has a breaking case', () => {
    expect(Object.keys(CASES).sort()).toEqual(config.forbidden.map((r) => r.name).sort());
  });

  it('each rule fires on a tree that breaks it, and nothing else fires', async () => {
    for (const { files } of Object.values(CASES)) {
      for (const [rel, text] of Object.entries(files)) put(rel, text);
    }
    const found = await violations(scratch, ['shared', 'server', 'web', 'bin']);
    const expected = Object.entries(CASES).flatMap(([rule, c]) => c.violations.map((v) => `${rule}: ${v}`));
    expect(found.sort()).toEqual(expected.sort());
  }, 60_000);
});

/**
 * The engine's files outside transport/ that call `fetch(` (global or
 * undici's), comments aside: an HTTP call the import rule above cannot see.
 */
export function fetchCallers(files: Record<string, string>): string[] {
  return Object.entries(files)
    .filter(([path]) => path.startsWith('server/engine/') && !path.startsWith('server/engine/transport/'))
    .filter(([, text]) =>
      text.split('\n').some((line) => !/^\s*(\/\/|\*|\/\*)/.test(line) && /\bfetch\s*\(/.test(line)),
    )
    .map(([path]) => path);
}

describe('the engine calls fetch only in transport/', () => {
  it('no file of server/engine/ outside transport/ calls fetch', () => {
    const files = Object.fromEntries(
      readdirSync(join(root, 'server/engine'), { recursive: true, encoding: 'utf8' })
        .filter((f) => /\.(ts|js|mjs)$/.test(f))
        .map((f) => [`server/engine/${f}`, readFileSync(join(root, 'server/engine', f), 'utf8')]),
    );
    expect(Object.keys(files).length).toBeGreaterThan(50);
    expect(fetchCallers(files)).toEqual([]);
  });

  it('the check sees a fetch outside transport/, and not one inside it or in a comment', () => {
    expect(
      fetchCallers({
        'server/engine/accuracy/a.ts': 'const res = await undici.fetch(url, { method: "POST" });\n',
        'server/engine/report/r.ts': '// the reporter would fetch(url) here\n * or fetch(url) there\n',
        'server/engine/transport/simpleClient.ts': 'return undici.fetch(url, init);\n',
      }),
    ).toEqual(['server/engine/accuracy/a.ts']);
  });
});
