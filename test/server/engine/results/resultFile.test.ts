/**
 * The result file's name and writing it, whole or appended as JSON-lines, as
 * `vllm bench serve` does.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { resultFilename, writeResult } from '#server/engine/results/resultFile.ts';
import { parseResultText } from '#shared/vllmResult/pyJson.ts';

const tmp = mkdtempSync(join(tmpdir(), 'stallscope-results-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe('resultFilename', () => {
  it('follows vLLM: {label|backend}-{rate}qps[-concurrencyN]-{model basename}-{date}.json', () => {
    const base = {
      label: null,
      backend: 'openai-chat-omni',
      modelId: 'openbmb/MiniCPM-o-4_5',
      date: '20260801-101500',
    };
    expect(resultFilename({ ...base, requestRate: Infinity, maxConcurrency: 10 })).toBe(
      'openai-chat-omni-infqps-concurrency10-MiniCPM-o-4_5-20260801-101500.json',
    );
    expect(resultFilename({ ...base, label: 'nightly', requestRate: 10, maxConcurrency: null })).toBe(
      'nightly-10.0qps-MiniCPM-o-4_5-20260801-101500.json',
    );
    expect(resultFilename({ ...base, requestRate: 0.5, maxConcurrency: 1, date: new Date(2026, 0, 2, 3, 4, 5) })).toBe(
      'openai-chat-omni-0.5qps-concurrency1-MiniCPM-o-4_5-20260102-030405.json',
    );
    const rampUp = { strategy: 'linear' as const, startRps: 1, endRps: 20 };
    expect(resultFilename({ ...base, requestRate: Infinity, maxConcurrency: 10, rampUp })).toBe(
      'openai-chat-omni-ramp-up-linear-1qps-20qps-concurrency10-MiniCPM-o-4_5-20260801-101500.json',
    );
  });
});

describe('writeResult', () => {
  it('writes one object, or appends JSON-lines with a newline only between objects', async () => {
    const path = join(tmp, 'nested', 'dir', 'r.json');
    await writeResult(path, { a: 1 });
    await writeResult(path, { a: 2 });
    expect(readFileSync(path, 'utf8')).toBe('{"a": 2}');
    await writeResult(path, { a: 3 }, { append: true });
    await writeResult(path, { a: 4 }, { append: true });
    expect(readFileSync(path, 'utf8')).toBe('{"a": 2}\n{"a": 3}\n{"a": 4}');
    expect(parseResultText(readFileSync(path, 'utf8')).map((o) => o.a)).toEqual([2, 3, 4]);
    const fresh = join(tmp, 'fresh.json');
    await writeResult(fresh, { b: 1 }, { append: true });
    expect(readFileSync(fresh, 'utf8')).toBe('{"b": 1}');
  });
});
