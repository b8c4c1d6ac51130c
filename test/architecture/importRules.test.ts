/**
 * The import rules of ARCHITECTURE.md are dependency-cruiser's rules
 * (.dependency-cruiser.cjs), run by `npm run lint`. Here the same rule set is
 * run twice through dependency-cruiser's API: on the real tree (no
 * violations), and on a small tree that breaks each rule once, so a rule that
 * silently stopped matching (a renamed folder, a typo in a path pattern)
 * fails this test instead of passing everything.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cruise, type ICruiseResult } from 'dependency-cruiser';

const root = resolve(import.meta.dirname, '../..');
type CruiseOptions = NonNullable<Parameters<typeof cruise>[1]>;
const config = createRequire(import.meta.url)(join(root, '.dependency-cruiser.cjs')) as {
  forbidden: NonNullable<CruiseOptions['ruleSet']>['forbidden'];
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

  it('each rule fires on a tree that breaks it', async () => {
    put('shared/a.ts', "import { b } from './b.ts';\nimport { s } from '../server/s.ts';\nexport const a = b + s;\n");
    put('shared/b.ts', "import { a } from './a.ts';\nexport const b = 1;\nexport const c = () => a;\n");
    put('shared/fsUser.ts', "import { readFileSync } from 'node:fs';\nexport const r = readFileSync;\n");
    put('server/s.ts', "import { w } from '../web/w.ts';\nexport const s = w;\n");
    put('web/w.ts', "import { t } from '../server/t.ts';\nexport const w = t;\n");
    put('server/t.ts', 'export const t = 1;\n');
    put('server/dashboard/store/db.ts', "import { h } from '../hub/hub.ts';\nexport const d = h;\n");
    put('server/dashboard/hub/hub.ts', 'export const h = 1;\n');
    put(
      'server/repro/code2wav/worker/entry.ts',
      "import { x } from '../../routes/chat.ts';\nimport { y } from './messages.ts';\nexport const e = x + y;\n",
    );
    put('server/repro/code2wav/worker/messages.ts', 'export const y = 1;\n');
    put('server/repro/routes/chat.ts', 'export const x = 1;\n');
    put(
      'server/engine/usesMessages.ts',
      "import { y } from '../target/code2wav/worker/messages.ts';\nexport const u = y;\n",
    );
    const found = await violations(scratch, ['shared', 'server', 'web']);
    const rules = new Set(found.map((v) => v.split(':')[0]));
    expect([...rules].sort()).toEqual([
      'no-circular',
      'server-not-web',
      'shared-is-self-contained',
      'shared-no-node-builtins',
      'store-below-hub',
      'web-not-server',
      'worker-messages-internal',
      'worker-without-fastify',
    ]);
  }, 60_000);
});
