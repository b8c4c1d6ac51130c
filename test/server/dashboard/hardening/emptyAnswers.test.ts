/**
 * A 200 answer that is not an event stream is counted "completed" by vLLM's
 * client (and by older stallscope CLIs). An imported or reported run holding
 * such requests must not be shown as passed.
 */
import { describe, expect } from 'vitest';
import { test as it } from '#test/helpers/fixtures.ts';
import { completedRequest, outcome, runStarted } from '#test/helpers/sampleEvents.ts';
import type { BenchEvent } from '#shared/protocol/protocol.ts';

/** A vLLM result: request 1 "succeeded" with no token and no time to first token (the body was HTML). */
const vllmResult = (ttfts: number[], outs: number[]) =>
  JSON.stringify({
    date: '20260401-184218',
    backend: 'openai-chat',
    model_id: 'm',
    num_prompts: 3,
    duration: 1.5,
    completed: 3,
    failed: 0,
    input_lens: [3, 3, 3],
    output_lens: outs,
    ttfts,
    itls: [[0.1], [], [0.1]],
    errors: ['', '', ''],
    generated_texts: ['ab', '', 'cd'],
  });

describe('requests that were answered 200 without an event stream', () => {
  it('an imported vLLM result with such a request is failed, saying why', async ({ app }) => {
    const bad = await app.inject({
      method: 'POST',
      url: '/api/import',
      headers: { 'content-type': 'application/json' },
      payload: vllmResult([0.01, 0, 0.02], [2, 0, 2]),
    });
    expect(bad.statusCode, bad.body).toBe(201);
    const d = (await app.inject({ url: `/api/runs/${bad.json().runs[0].id}` })).json();
    expect(d.verdict).toBe('failed');
    expect(d.summary.verdictReasons[0]).toMatch(/1 request counted completed with nothing streamed back/);
    // The same file with a real answer in its place passes.
    const good = await app.inject({
      method: 'POST',
      url: '/api/import',
      headers: { 'content-type': 'application/json' },
      payload: vllmResult([0.01, 0.03, 0.02], [2, 1, 2]),
    });
    expect((await app.inject({ url: `/api/runs/${good.json().runs[0].id}` })).json().verdict).toBe('passed');
  });

  it('a reported run whose CLI counted one as completed is failed, not passed', async ({ app }) => {
    await app.inject({ method: 'POST', url: '/api/runs/external', payload: { runId: 'e1' } });
    const empty = outcome('e1', 1, 'completed', { ttftS: 0, outputTokens: 0, audioDurationS: 0, audioTtfpS: 0 });
    const counts = {
      total: 2,
      completed: 2,
      failed: 0,
      timedOut: 0,
      cancelledAfterTimeout: 0,
      cancelled: 0,
      errored: 0,
      unsent: 0,
    };
    const events: BenchEvent[] = [
      runStarted('e1', 2) as BenchEvent,
      ...(completedRequest('e1', 0) as BenchEvent[]),
      { type: 'request.completed', t: 7, outcome: empty },
      {
        type: 'run.finished',
        t: 8,
        summary: {
          verdict: 'passed',
          verdictReasons: ['all 2 requests completed'],
          counts,
          durationS: 0.008,
          breakerTripped: false,
          cause: null,
          metrics: { completed: 2 },
        },
      },
    ];
    const r = await app.inject({ method: 'POST', url: '/api/runs/e1/events', payload: { events } });
    expect(r.statusCode, r.body).toBe(200);
    const d = (await app.inject({ url: '/api/runs/e1' })).json();
    expect(d.verdict).toBe('failed');
    expect(d.summary.verdictReasons).toEqual([
      '1 request counted completed with nothing streamed back (no token, no audio): a 200 answer that was not an event stream',
    ]);
  });
});
