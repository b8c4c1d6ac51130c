import { describe, expect } from 'vitest';
import { sqliteOf } from '#test/helpers/sqliteStore.ts';
import { test as it } from '#test/helpers/fixtures.ts';
import type { FastifyInstance } from 'fastify';
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const DIR = fileURLToPath(new URL('../../../fixtures/vllm-results/', import.meta.url));

const upload = (app: FastifyInstance, text: string, filename = 'result.json', type = 'text/plain') =>
  app.inject({
    method: 'POST',
    url: '/api/import',
    headers: { 'content-type': type, 'x-filename': encodeURIComponent(filename) },
    payload: text,
  });

/** What each real fixture must import as (every file in the directory must be listed). */
const EXPECTED: Record<string, { runs: number; first: Record<string, unknown>; requests?: number; present: string[] }> =
  {
    'all-requests-failed-v0.25.1.json': {
      runs: 1,
      first: { verdict: 'failed', counts: { completed: 0, failed: 8 } },
      present: ['summary', 'percentiles'],
    },
    'detailed-append-jsonl-1token.json': {
      runs: 11,
      first: { verdict: 'passed', counts: { completed: 5, failed: 0 } },
      requests: 5,
      present: ['summary', 'detailed'],
    },
    'detailed-append-jsonl-itls.json': {
      runs: 16,
      first: { verdict: 'passed', metadata: { type: 'warmup', 'import.file': 'detailed-append-jsonl-itls.json' } },
      requests: 5,
      present: ['detailed', 'percentiles'],
    },
    'omni-chat-compact-randommm.json': {
      runs: 1,
      first: {
        verdict: 'passed',
        requestRate: '0.1',
        maxConcurrency: null,
        model: 'Qwen/Qwen3-Omni-30B-A3B-Instruct',
        counts: { completed: 10 },
      },
      present: ['summary', 'audio', 'percentiles'],
    },
    'omni-text-only-zero-audio.json': { runs: 1, first: { verdict: 'passed' }, present: ['summary', 'audio'] },
    'omni-tts-seedtts-failed31.json': {
      runs: 1,
      first: { verdict: 'failed', requestRate: 'inf', counts: { completed: 97, failed: 31, total: 128 } },
      present: ['summary', 'audio'],
    },
  };

describe('POST /api/import', () => {
  it('imports every real vLLM result fixture, JSON and JSON-lines, saying which parts were present', async ({
    app,
  }) => {
    const files = readdirSync(DIR)
      .filter((f) => f !== 'README.md')
      .sort();
    expect(files).toEqual(Object.keys(EXPECTED).sort());
    for (const f of files) {
      const exp = EXPECTED[f];
      const r = await upload(app, readFileSync(DIR + f, 'utf8'), f);
      expect(r.statusCode, `${f}: ${r.body}`).toBe(201);
      const { runs } = r.json();
      expect(runs, f).toHaveLength(exp.runs);
      expect(runs[0].present, f).toEqual(expect.arrayContaining(exp.present));
      expect(runs[0].missing, f).toContain('verdict');
      const d = (await app.inject({ url: `/api/runs/${runs[0].id}` })).json();
      expect(d, f).toMatchObject({ source: 'import', status: 'finished', ...exp.first });
      expect(d.importInfo).toMatchObject({ file: f, object: 1, of: exp.runs });
      const reqs = (await app.inject({ url: `/api/runs/${runs[0].id}/requests` })).json();
      expect(reqs.total, f).toBe(exp.requests ?? 0);
    }
    // The detailed itls file: latencies come from ttft + Σitl, times from start_times.
    const itls = (await app.inject({ url: '/api/runs?q=detailed-append-jsonl-itls.json%20%232&limit=1' })).json()
      .runs[0];
    const rows = (await app.inject({ url: `/api/runs/${itls.id}/requests` })).json().requests;
    expect(rows[0].e2elS).toBeGreaterThan(rows[0].ttftS);
    expect(rows[0].status).toBe('completed');
    expect((await app.inject({ url: '/api/runs?source=import' })).json().total).toBe(31);
  });

  it('accepts bare NaN/Infinity literals and the fail-fast keys, and keeps the original for export', async ({
    app,
  }) => {
    const line = (label: string) =>
      `{"date": "20261129-101500", "backend": "openai-chat-omni", "label": "${label}", "model_id": "openbmb/MiniCPM-o-4_5", "num_prompts": 4, "request_rate": Infinity, "max_concurrency": 2, ` +
      `"duration": 4.5, "completed": 1, "failed": 3, "mean_tpot_ms": NaN, "p99_itl_ms": -Infinity, "mean_ttft_ms": 12.5, ` +
      `"timed_out_requests": 1, "cancelled_after_timeout_requests": 2, "not_dispatched_requests": 1, "fail_fast_enabled": true, "fail_fast_tripped": true, ` +
      `"input_lens": [3, 3, 3, 3], "output_lens": [5, 0, 0, 0], "ttfts": [0.01, 0, 0, 0], "itls": [[0.1, 0.1], [], [], []], "errors": ["", "timeout", "cancelled", "not sent"], ` +
      `"statuses": ["completed", "timed_out", "cancelled_after_timeout", "not_dispatched"]}`;
    const r = await upload(app, `${line('a')}\n${line('b')}\n`, 'nan.jsonl', 'application/json');
    expect(r.statusCode, r.body).toBe(201);
    const { runs } = r.json();
    expect(runs).toHaveLength(2);
    expect(runs[0].present).toEqual(
      expect.arrayContaining(['summary', 'percentiles', 'detailed', 'failFast', 'statuses']),
    );
    const d = (await app.inject({ url: `/api/runs/${runs[0].id}` })).json();
    expect(d).toMatchObject({
      label: 'a',
      verdict: 'failed_closed',
      requestRate: 'inf',
      failFast: true,
      counts: { timedOut: 1, cancelledAfterTimeout: 2, unsent: 1 },
    });
    expect(d.summary.metrics).toMatchObject({ mean_tpot_ms: null, p99_itl_ms: null, mean_ttft_ms: 12.5 });
    const rows = (await app.inject({ url: `/api/runs/${runs[0].id}/requests` })).json().requests;
    expect(rows.map((x: { status: string }) => x.status)).toEqual([
      'completed',
      'timed_out',
      'cancelled_after_timeout',
      'not_dispatched',
    ]);
    const exp = await app.inject({ url: `/api/runs/${runs[0].id}/export?format=vllm` });
    expect(exp.body).not.toMatch(/NaN|Infinity/);
    expect(JSON.parse(exp.body)).toMatchObject({ label: 'a', completed: 1, timed_out_requests: 1, mean_tpot_ms: null });
  });

  it('refuses files that are not vLLM results, storing nothing', async ({ app }) => {
    for (const bad of ['', 'not json', '[1, 2]', '{"hello": "world"}', '{"completed": 1}\n{broken']) {
      const r = await upload(app, bad);
      expect(r.statusCode, bad).toBe(400);
      expect(r.json().code).toBe('API_IMPORT_INVALID');
    }
    expect(sqliteOf(app.store).runs.list({ limit: 10, offset: 0 }).total).toBe(0);
  });

  it('a refusal names the file and the object: not a bare JSON parse error', async ({ app }) => {
    const r = await upload(app, '{"completed": 1}\n{broken', 'nightly-42.jsonl');
    expect(r.statusCode).toBe(400);
    expect(r.json().message).toMatch(
      /^the file is not a vLLM result: "nightly-42\.jsonl": object 2 is not valid JSON: /,
    );
  });
});

describe('importing a result a stop rule stopped', () => {
  it('keeps stopped_by as the summary says it (docs/design.md#stop-rules); a file without it has none', async () => {
    const { interpretResult } = await import('#server/dashboard/import/vllmResult.ts');
    const stopped = {
      completed: 3,
      failed: 4,
      fail_fast_tripped: true,
      fail_fast_cause: null,
      stop_on: ['errors>=3'],
      stopped_by: {
        rule: 'errors>=3',
        kind: 'errors',
        at_s: 1.25,
        value: 3,
        requests: [1, 3, 5].map((index) => ({ index, request_id: `r-${index}` })),
        omitted: 0,
      },
    };
    expect(interpretResult(stopped, 'i1', 0).summary.stoppedBy).toEqual({
      kind: 'errors',
      rule: 'errors>=3',
      atS: 1.25,
      value: 3,
      requests: [1, 3, 5].map((index) => ({ index, requestId: `r-${index}` })),
      omitted: 0,
    });
    expect(interpretResult({ completed: 1, failed: 0 }, 'i2', 0).summary.stoppedBy).toBeNull();
  });
});
