import { describe, expect, it } from 'vitest';
import type { RunEvent, SeqEvent } from '#shared/protocol/protocol.ts';
import { applyEvents } from '#shared/runView/applyEvent.ts';
import { emptyRun } from '#shared/runView/runModel.ts';
import { gateView, werHistogram, werValues } from '#web/state/accuracy.ts';
import { metricSections } from '#web/state/metricsTable.ts';
import { runSpecIssues, specToRunConfig } from '#shared/config/runSpec.ts';
import { CODE2WAV_HANG } from '#shared/config/presets.ts';
import { outcome, T0 } from '#test/helpers/failFastRun.ts';

const seq = (events: RunEvent[]): SeqEvent[] => events.map((event, i) => ({ seq: i + 1, event }));

/** A 3-request Seed-TTS run in the order events really happen: the gate starts after the last request ends. */
function gateRun(finished: boolean): RunEvent[] {
  const item = (index: number, wer: number | null, transcript: string | null, error: string | null): RunEvent => ({
    type: 'accuracy.item',
    t: 1000 + index,
    index,
    utteranceId: `utt_${index}`,
    reference: `sentence ${index}`,
    transcript,
    wer,
    error,
    ...(error === 'asr_exception' ? { detail: 'HTTP 500: boom' } : {}),
  });
  const events: RunEvent[] = [
    {
      type: 'run.started',
      t: 0,
      runId: 'g',
      startedAtMs: T0,
      numRequests: 3,
      maxConcurrency: 2,
      requestRate: 'inf',
      failFast: false,
      model: 'm',
      baseUrl: 'http://x',
    },
    { type: 'request.completed', t: 500, outcome: outcome(0, 'completed') },
    { type: 'request.completed', t: 600, outcome: outcome(1, 'completed') },
    { type: 'request.completed', t: 700, outcome: outcome(2, 'completed') },
    {
      type: 'accuracy.started',
      t: 800,
      total: 3,
      asrModel: 'openai/whisper-large-v3',
      bounds: ['seed_tts_content_error_mean<=0.05'],
    },
    item(0, 0, 'sentence 0', null),
    item(2, 0.25, 'sentence two', null),
    item(1, null, null, 'asr_exception'),
  ];
  if (finished)
    events.push({
      type: 'run.finished',
      t: 1200,
      summary: {
        verdict: 'failed',
        verdictReasons: [],
        counts: {
          total: 3,
          completed: 3,
          failed: 0,
          timedOut: 0,
          cancelledAfterTimeout: 0,
          cancelled: 0,
          errored: 0,
          unsent: 0,
        },
        durationS: 1,
        breakerTripped: false,
        cause: null,
        metrics: {
          seed_tts_eval_protocol: 'seed-tts-eval',
          seed_tts_content_evaluated: 2,
          seed_tts_content_error_mean: 0.125,
          seed_tts_content_error_median: 0.125,
          seed_tts_request_failed: 0,
          seed_tts_no_pcm: 0,
          seed_tts_asr_failed: 1,
          seed_tts_content_metric: 'wer',
        },
      },
    });
  return events;
}

describe('the Seed-TTS gate in the browser model', () => {
  it('puts each transcript and WER on its request and counts progress', () => {
    const m = applyEvents(emptyRun('g'), seq(gateRun(false)));
    expect(m.accuracy).toEqual({
      total: 3,
      done: 3,
      asrModel: 'openai/whisper-large-v3',
      bounds: ['seed_tts_content_error_mean<=0.05'],
    });
    expect(m.requests[2].accuracy).toMatchObject({ transcript: 'sentence two', wer: 0.25, error: null });
    expect(m.requests[1].accuracy).toMatchObject({ wer: null, error: 'asr_exception', detail: 'HTTP 500: boom' });
    expect(werValues(m.requests)).toEqual([0, 0.25]);
  });

  it('shows live values from the items, then the result keys once the run is finished, against the bound', () => {
    const live = applyEvents(emptyRun('g'), seq(gateRun(false)));
    expect(gateView(live.accuracy, live.requests, null)).toMatchObject({
      final: false,
      evaluated: 2,
      asrFailed: 1,
      mean: 0.125,
      median: 0.125,
      bounds: [{ key: 'seed_tts_content_error_mean', op: '<=', value: 0.05, holds: false }],
    });
    const done = applyEvents(emptyRun('g'), seq(gateRun(true)));
    const v = gateView(done.accuracy, done.requests, done.summary!.metrics);
    expect(v).toMatchObject({ final: true, evaluated: 2, asrFailed: 1, mean: 0.125 });
    expect(v!.bounds[0].holds).toBe(false);
    expect(gateView(null, [], { mean_ttft_ms: 1 })).toBeNull();
  });

  it('bins WER in tenths with one bin above 1', () => {
    const bins = werHistogram([0, 0, 0.05, 0.25, 1, 1.5]);
    expect(bins[0]).toEqual({ label: '0–0.1', count: 3 });
    expect(bins[2].count).toBe(1);
    expect(bins[9].count).toBe(1); // 1.0 is in the last tenth
    expect(bins[10]).toEqual({ label: '> 1', count: 1 });
    expect(werHistogram([])).toEqual([]);
  });

  it('adds a Seed-TTS accuracy section to the metrics table (and so to Compare)', () => {
    const secs = metricSections([{ seed_tts_content_error_mean: 0.03 }, { seed_tts_content_error_mean: null }]);
    const sec = secs.find((s) => s.title.startsWith('Seed-TTS'));
    expect(sec?.rows).toEqual([{ key: 'seed_tts_content_error_mean', label: 'Mean WER', digits: 4 }]);
    expect(metricSections([{ mean_ttft_ms: 1 }]).some((s) => s.title.startsWith('Seed-TTS'))).toBe(false);
  });
});

describe('the RunSpec gate fields', () => {
  const seedSpec = (werEval: Record<string, unknown>) => ({
    ...CODE2WAV_HANG.spec,
    dataset: { name: 'seed-tts', path: '/d', locale: 'en', noOversample: true, werEval },
  });

  it('needs a transcription URL when enabled', () => {
    expect(runSpecIssues(seedSpec({ enabled: true }))).toContainEqual(
      expect.objectContaining({ field: 'dataset.werEval.asrUrl', severity: 'error' }),
    );
    expect(runSpecIssues(seedSpec({ enabled: true, asrUrl: 'http://127.0.0.1:8001' }))).toEqual([]);
  });

  it('maps to the engine config with the CLI defaults', () => {
    const spec = seedSpec({ enabled: true, asrUrl: 'http://127.0.0.1:8001/' }) as typeof CODE2WAV_HANG.spec;
    expect(specToRunConfig(spec, 'r').accuracy.seedTtsEval).toEqual({
      asrUrl: 'http://127.0.0.1:8001',
      asrModel: 'openai/whisper-large-v3',
      asrConcurrency: 4,
      saveItems: false,
    });
    expect(specToRunConfig(seedSpec({ enabled: false }) as typeof spec, 'r').accuracy.seedTtsEval).toBeNull();
  });
});
