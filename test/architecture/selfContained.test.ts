/**
 * A clone of the repository alone must set up, test and run: no test, script
 * or source file may read a path outside it (the fixtures once lived in a
 * folder beside the repository, which no one who clones it has).
 *
 * Every relative path literal (quoted, starting with ./ or ../, template heads
 * included) and every import specifier is resolved against the file that
 * holds it; one that lands outside the repository root fails, as do more
 * parent-directory path pieces than the file is deep, and an absolute path
 * into the workspace the repository was developed in. This file is checked
 * like any other: its own examples are built from pieces at run time.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = resolve(import.meta.dirname, '../..');
const SCANNED = ['bin', 'server', 'shared', 'web', 'test', '.ci'];
const SKIP_DIRS = new Set(['node_modules', 'dist', '.venv', 'vllm-results', 'golden']);
const TEXT = /\.(ts|tsx|mjs|js|cjs|py|sh|json)$|^(run|setup)$/;

function files(dir: string): string[] {
  let out: string[] = [];
  for (const name of readdirSync(join(root, dir))) {
    const rel = join(dir, name);
    if (statSync(join(root, rel)).isDirectory()) {
      if (!SKIP_DIRS.has(name)) out = out.concat(files(rel));
    } else if (TEXT.test(name)) out.push(rel);
  }
  return out;
}

/** Relative path literals: quoted strings that start with ./ or ../ (template heads included). */
const REL_LITERAL = /['"`](\.{1,2}\/[^'"`$\s]*)/g;
/** Parent-directory walks built from path pieces (a quoted two-dot piece passed to join). */
const UP_PIECES = /['"]\.\.['"]/g;

export function escapes(file: string, text: string): string[] {
  const bad: string[] = [];
  const from = dirname(join(root, file));
  for (const m of text.matchAll(REL_LITERAL)) {
    const target = resolve(from, m[1]);
    if (target !== root && !target.startsWith(root + sep)) bad.push(`${file}: ${m[1]}`);
  }
  const ups = text.match(UP_PIECES)?.length ?? 0;
  const depth = relative(root, from).split(sep).filter(Boolean).length;
  if (ups > depth) bad.push(`${file}: ${ups} parent-directory path pieces from depth ${depth}`);
  if (/\/work\/(shared|\.library)\b|\.\.\/shared\/(fixtures|reference|DESIGN)/.test(text))
    bad.push(`${file}: names the workspace outside the repository`);
  return bad;
}

describe('the repository stands on its own', () => {
  it('no file reads or imports a path outside the repository', () => {
    const bad = SCANNED.flatMap((d) => files(d)).flatMap((f) => escapes(f, readFileSync(join(root, f), 'utf8')));
    expect(bad).toEqual([]);
  });

  it('the check catches an escape (a literal, a path walk, the old fixture folder)', () => {
    // Built from pieces, so this file holds no escaping path itself.
    const up = (n: number): string => `${'.'.repeat(2)}/`.repeat(n);
    const dots = `'${'.'.repeat(2)}'`;
    const file = 'test/web/x.test.ts';
    const oldFixture = `${up(3)}shared/fixtures/a.json`;
    expect(escapes(file, `new URL('${oldFixture}', import.meta.url)`)).toEqual([
      `${file}: ${oldFixture}`,
      `${file}: names the workspace outside the repository`,
    ]);
    expect(escapes(file, `join(__dirname, ${dots}, ${dots}, ${dots}, 'elsewhere')`)).toEqual([
      `${file}: 3 parent-directory path pieces from depth 2`,
    ]);
    expect(escapes(file, `readFileSync('${up(1)}fixtures/vllm-results/a.json')`)).toEqual([]);
  });
});
