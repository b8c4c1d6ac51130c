/**
 * The import rules of ARCHITECTURE.md, enforced: shared/ imports nothing
 * outside itself and touches no Node or DOM globals; web/ and server/ never
 * import each other; the Code2Wav worker entry pulls in no Fastify code.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = resolve(import.meta.dirname, '../..');

function sourceFiles(dir: string): string[] {
  const abs = join(root, dir);
  let out: string[] = [];
  for (const name of readdirSync(abs)) {
    const p = join(abs, name);
    if (statSync(p).isDirectory()) out = out.concat(sourceFiles(relative(root, p)));
    else if (/\.(ts|tsx)$/.test(name)) out.push(relative(root, p));
  }
  return out;
}

const IMPORT_RE = /(?:^|\n)\s*(?:import|export)\b[^'"]*?from\s*['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/g;

function importsOf(file: string): string[] {
  const text = readFileSync(join(root, file), 'utf8');
  const out: string[] = [];
  for (const m of text.matchAll(IMPORT_RE)) out.push(m[1] ?? m[2]);
  return out;
}

/** Resolves a relative specifier to a repo-relative path (or returns the bare package name). */
function target(file: string, spec: string): string {
  if (!spec.startsWith('.')) return spec;
  return relative(root, resolve(join(root, dirname(file)), spec));
}

describe('import rules', () => {
  it('shared/ imports only shared/ and plain packages, and uses no Node or DOM globals', () => {
    const bad: string[] = [];
    for (const f of sourceFiles('shared')) {
      for (const spec of importsOf(f)) {
        const t = target(f, spec);
        if (spec.startsWith('.') && !t.startsWith('shared/')) bad.push(`${f} imports ${spec}`);
        if (spec.startsWith('node:')) bad.push(`${f} imports ${spec}`);
      }
      const code = readFileSync(join(root, f), 'utf8').replace(/\/\*[\s\S]*?\*\/|\/\/.*$/gm, '');
      for (const g of ['process.', 'Buffer.', 'window.', 'document.', 'require(']) {
        if (code.includes(g)) bad.push(`${f} uses ${g}`);
      }
    }
    expect(bad).toEqual([]);
  });

  it('web/ never imports server/, server/ never imports web/', () => {
    const bad: string[] = [];
    for (const [from, forbidden] of [
      ['web', 'server/'],
      ['server', 'web/'],
    ] as const) {
      for (const f of sourceFiles(from)) {
        for (const spec of importsOf(f)) {
          if (spec.startsWith('.') && target(f, spec).startsWith(forbidden)) bad.push(`${f} imports ${spec}`);
        }
      }
    }
    expect(bad).toEqual([]);
  });

  it('the Code2Wav worker side imports no Fastify code', () => {
    const workerFiles = sourceFiles('server/target').filter((f) => /worker|kernels/i.test(f));
    expect(workerFiles.length).toBeGreaterThan(0);
    const bad: string[] = [];
    // Follow relative imports transitively from every worker-side file.
    const seen = new Set<string>();
    const stack = [...workerFiles];
    while (stack.length) {
      const f = stack.pop()!;
      if (seen.has(f)) continue;
      seen.add(f);
      for (const spec of importsOf(f)) {
        if (/fastify/.test(spec)) bad.push(`${f} imports ${spec}`);
        if (spec.startsWith('.')) stack.push(target(f, spec));
      }
    }
    expect(bad).toEqual([]);
  });
});
