/**
 * A RunSpec inside every field's limit must not exhaust the heap by their
 * product. The issue's spec (code2wav-hang preset, a URL target, 2,000
 * prompts × 2,000 in flight × a million-word prompt) is refused with a 400
 * saying why and how much, by a real dashboard in a child process whose heap
 * is far too small to survive building those prompts; prompts are built per
 * request, not up front.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CODE2WAV_HANG } from '#shared/config/presets.ts';
import { estimateRunMemory, memoryBudgetIssue, RUN_MEMORY_BUDGET_BYTES } from '#shared/config/memoryBudget.ts';
import { runSpecIssues, withRunSpecDefaults, type RunSpec } from '#shared/config/runSpec.ts';
import { loadRandom } from '#server/engine/datasets/random.ts';
import { SpecError } from '#server/dashboard/plugins/errors.ts';

const BIN = fileURLToPath(new URL('../../../../bin/stallscope.js', import.meta.url));
let child: ChildProcess | null = null;
let dir: string | null = null;
afterEach(async () => {
  if (child && child.exitCode === null && child.signalCode === null) {
    const gone = new Promise((r) => child!.once('exit', r));
    child.kill('SIGKILL');
    await gone;
  }
  child = null;
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = null;
});

const hostile = {
  ...CODE2WAV_HANG.spec,
  target: { kind: 'url', baseUrl: 'http://127.0.0.1:1' },
  numPrompts: 2000,
  maxConcurrency: 2000,
  dataset: { name: 'random', inputLen: 1_000_000, outputLen: 16 },
};

describe('the memory budget of a run', () => {
  it('bounds the product: the hostile spec is an error naming the size; a million small requests fit', () => {
    const issues = runSpecIssues(withRunSpecDefaults(hostile));
    const e = issues.find((i) => i.severity === 'error')!;
    expect(e.field).toBe('dataset.inputLen');
    expect(e.code).toBe('API_MEMORY_BUDGET');
    expect(e.message).toMatch(
      /would hold about 44\.7 GB in memory .*2,000 requests in flight .*1,000,000 words.*over the 1\.0 GB budget/,
    );
    const big = withRunSpecDefaults({
      ...CODE2WAV_HANG.spec,
      numPrompts: 1_000_000,
      maxConcurrency: 10,
      dataset: { name: 'random', inputLen: 32, outputLen: 16 },
    }) as RunSpec;
    expect(memoryBudgetIssue(big)).toBeNull();
    expect(estimateRunMemory(big).total).toBeLessThan(RUN_MEMORY_BUDGET_BYTES);
    // Every field alone within its limit, the product not: a million requests with long outputs.
    const long = { ...big, dataset: { name: 'random' as const, inputLen: 32, outputLen: 100_000 } };
    expect(memoryBudgetIssue(long)).toMatchObject({ field: 'numPrompts' });
  });

  it("a refused spec's reply code is its first error's own code, not read from the wording", () => {
    const reworded = { field: 'numPrompts', message: 'too big as a whole', severity: 'error' as const };
    expect(new SpecError([{ ...reworded, code: 'API_MEMORY_BUDGET' }]).code).toBe('API_MEMORY_BUDGET');
    expect(new SpecError([reworded]).code).toBe('CONFIG_INVALID');
    // A warning before the error does not decide the code.
    const warning = { field: 'x', message: 'w', severity: 'warning' as const, code: 'API_MEMORY_BUDGET' as const };
    expect(new SpecError([warning, reworded]).code).toBe('CONFIG_INVALID');
  });

  it('random prompts are built per request, not up front', () => {
    const before = process.memoryUsage().heapUsed;
    const d = loadRandom(2000, 1_000_000, 16, 0, 1);
    expect(process.memoryUsage().heapUsed - before).toBeLessThan(50 * 1024 * 1024);
    const text = (d.samples[1999].messages[0] as { content: { text: string }[] }).content[0].text;
    expect(text.split(' ')).toHaveLength(1_000_000);
    // Built again on the next read, the same words.
    expect((d.samples[1999].messages[0] as { content: { text: string }[] }).content[0].text).toBe(text);
  });

  it('a real dashboard with a small heap refuses the hostile spec with a 400 and stays up', async () => {
    dir = mkdtempSync(join(tmpdir(), 'ss-oom-'));
    child = spawn(process.execPath, ['--max-old-space-size=128', BIN, 'serve', '--port', '0', '--data-dir', dir], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    const url = await new Promise<string>((resolve, reject) => {
      child!.stdout!.setEncoding('utf8').on('data', (d: string) => {
        out += d;
        const m = /listening on (http:\/\/\S+)\n/.exec(out);
        if (m) resolve(m[1]);
      });
      child!.once('exit', (c) => reject(new Error(`exited ${c}: ${out}`)));
    });
    const r = await fetch(`${url}/api/runs`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(hostile),
    });
    expect(r.status).toBe(400);
    const body = (await r.json()) as { code: string; message: string; field: string };
    expect(body.code).toBe('API_MEMORY_BUDGET');
    expect(body.field).toBe('dataset.inputLen');
    expect(body.message).toMatch(/GB in memory/);
    expect((await fetch(`${url}/api/health`)).status).toBe(200);
    expect((await (await fetch(`${url}/api/runs`)).json()).total).toBe(0); // nothing was started
    expect(child.exitCode).toBeNull();
  }, 30_000);
});
