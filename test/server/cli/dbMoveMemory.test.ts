/**
 * `stallscope db export`/`import` moves a run's result as stored text (docs/design.md#team-dashboard): the move's
 * peak memory is about the largest result again, not the ~7× a parse and re-serialisation cost (a 100 MB result
 * took the move to 756 MB), and the result arrives byte for byte, whole or in parts, once.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import Database from 'better-sqlite3';

const dirs: string[] = [];
const tmp = () => {
  const d = mkdtempSync(join(tmpdir(), 'stallscope-dbmem-'));
  dirs.push(d);
  return d;
};
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

const tsx = ['--import', 'tsx'];
const CHILD = fileURLToPath(new URL('./dbMoveMemory.child.ts', import.meta.url));

/** A data folder holding one run with an `mb` MiB result. */
function make(mb: number): string {
  const dir = tmp();
  execFileSync(process.execPath, [...tsx, CHILD, dir, String(mb)]);
  return dir;
}

/** `db export` from `from` into a fresh folder in a process of its own; its peak RSS in MiB and the folder. */
function exportPeak(from: string): { peakMb: number; to: string } {
  const to = tmp();
  const script = `const { run } = await import('#server/cli/db.ts');
    const code = await run(['export', '--data-dir', ${JSON.stringify(from)}, '--to', ${JSON.stringify(to)}]);
    process.stdout.write(JSON.stringify({ code, maxRss: process.resourceUsage().maxRSS }));`;
  const r = spawnSync(process.execPath, [...tsx, '--input-type=module', '-e', script], { encoding: 'utf8' });
  const out = JSON.parse(r.stdout.slice(r.stdout.lastIndexOf('{'))) as { code: number; maxRss: number };
  expect(out.code).toBe(0);
  return { peakMb: out.maxRss / 1024, to };
}

const storedResult = (dir: string) => {
  const db = new Database(join(dir, 'stallscope.db'), { readonly: true });
  try {
    const run = db.prepare('SELECT result_json, result_parts FROM runs').get() as {
      result_json: string | null;
      result_parts: number | null;
    };
    const parts = (db.prepare('SELECT text FROM run_results ORDER BY part').pluck().all() as string[]).join('');
    return { whole: run.result_json, parts: run.result_parts, text: run.result_json ?? parts };
  } finally {
    db.close();
  }
};

describe('db move memory', () => {
  it('moves a 40 MiB result in about its size again, byte for byte, whole or from parts', () => {
    const small = exportPeak(make(1));
    const bigFrom = make(40);
    const big = exportPeak(bigFrom);
    const grew = big.peakMb - small.peakMb;
    // Parsed and re-serialised, the same move grew ~4.7-6.6× the result; as text 1.1-2.2× (+45 to +86 MiB over runs:
    // the peak moves with when V8 collects). 2.5× keeps the text move and fails the parsed one.
    console.log(`db move: +${grew.toFixed(0)} MiB for a 40 MiB result`);
    expect(grew).toBeLessThan(40 * 2.5);
    const source = storedResult(bigFrom);
    const moved = storedResult(big.to);
    expect(moved.text.length).toBe(source.text.length);
    expect(moved.text === source.text).toBe(true);
    expect(moved.parts).toBe(40 + 1);

    // Back from parts to a third folder: copied a part at a time, the same text.
    const again = exportPeak(big.to);
    expect(storedResult(again.to).text === source.text).toBe(true);
  }, 120_000);
});
