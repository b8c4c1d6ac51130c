/** The import rule, enforced: web/ imports only web/, shared/ and packages, never server/ (and no Node built-ins). */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const files = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? files(join(dir, e.name)) : /\.tsx?$/.test(e.name) ? [join(dir, e.name)] : [],
  );

describe('web import direction', () => {
  it('web/ reaches only web/, shared/ and npm packages', () => {
    const bad: string[] = [];
    const all = files(join(ROOT, 'web'));
    expect(all.length).toBeGreaterThan(20);
    for (const f of all) {
      for (const m of readFileSync(f, 'utf8').matchAll(/(?:from|import)\s*\(?\s*'([^']+)'/g)) {
        const spec = m[1];
        if (spec.startsWith('node:') || ['fs', 'path', 'child_process', 'worker_threads'].includes(spec))
          bad.push(`${relative(ROOT, f)} → ${spec}`);
        if (!spec.startsWith('.')) continue;
        const target = relative(ROOT, resolve(f, '..', spec));
        if (!target.startsWith('web/') && !target.startsWith('shared/')) bad.push(`${relative(ROOT, f)} → ${target}`);
      }
    }
    expect(bad).toEqual([]);
  });
});
