import { describe, expect, it } from 'vitest';
import { calculateMetrics } from '#shared/metrics/index.ts';
import { evaluateVerdict } from '#shared/runInfo/verdict.ts';
import { buildResultJson } from '#shared/vllmResult/resultJson.ts';
import { centre, fixed2, percent2 } from '#server/engine/results/pyFormat.ts';
import { formatSummary } from '#server/engine/results/summary.ts';
import { placeholderRecord } from '#server/engine/records/record.ts';
import { readJson, runSequence } from '#test/fixtures/golden-helpers/golden.ts';
import type { StoppedBy } from '#shared/config/stopRules.ts';

const EXTRAS = {
  percentileMetrics: ['ttft', 'tpot', 'itl', 'e2el', 'audio_ttfp', 'audio_rtf', 'audio_duration'],
  metricPercentiles: [50, 90, 99],
};

function resultFor(cases: number[], over: Partial<Parameters<typeof buildResultJson>[0]> = {}, extras = EXTRAS) {
  const { records, durationS } = runSequence(cases);
  const metrics = calculateMetrics(records, { durationS, ...extras });
  return buildResultJson({
    date: '20260801-101500',
    backend: 'openai-chat-omni',
    label: null,
    modelId: 'm',
    numPrompts: cases.length,
    requestRate: Infinity,
    burstiness: 1,
    maxConcurrency: 1,
    metrics,
    detailed: false,
    records,
    statuses: records.map((r) => (r.success ? 'completed' : 'failed')),
    counts: {
      total: records.length,
      completed: metrics.completed,
      failed: metrics.failed,
      timedOut: 0,
      cancelledAfterTimeout: 0,
      cancelled: 0,
      errored: 0,
      unsent: 0,
    },
    failFast: { enabled: false, tripped: false, cause: null },
    verdict: 'passed',
    verdictReasons: [],
    ...over,
  });
}

describe('Python number formatting', () => {
  it('rounds exact ties half-to-even like Python, everything else like toFixed', () => {
    expect(fixed2(703.125)).toBe('703.12');
    expect(fixed2(953.125)).toBe('953.12');
    expect(fixed2(0.125)).toBe('0.12');
    expect(fixed2(0.375)).toBe('0.38');
    expect(fixed2(2.2890625)).toBe('2.29');
    expect(fixed2(1.005)).toBe('1.00'); // 1.005 is really 1.00499999999999989...
    expect(fixed2(-0.125)).toBe('-0.12');
    expect(fixed2(1009.3749999999999)).toBe('1009.37');
    expect(percent2(1)).toBe('100.00%');
    expect(centre('Time to First Token', '-')).toBe('---------------Time to First Token----------------');
  });
});

describe('formatSummary', () => {
  it.each(['aggregate_cases1-3'])("reproduces vLLM-Omni's console block for %s byte for byte", (name) => {
    const console = readJson<{ console_stdout: string }>(`${name}.expected.json`).console_stdout;
    const block = console.slice(console.indexOf('============ Serving Benchmark Result'));
    const text = formatSummary(resultFor([1, 2, 3]), EXTRAS);
    expect(text.startsWith(block)).toBe(true);
    expect(text.slice(block.length)).toMatch(/^=================== Fail-fast ====================\n/);
    // Without explicit extras the selection is read back from the result keys: same text.
    expect(formatSummary(resultFor([1, 2, 3]))).toBe(text);
  });

  it('under OMNI-NEW rules, cases 1-8 differ from the July console only in the lines case 5 touches', () => {
    const july = readJson<{ console_stdout: string }>('aggregate_cases1-8.expected.json').console_stdout.split('\n');
    const ours = formatSummary(resultFor([1, 2, 3, 4, 5, 6, 7, 8]), EXTRAS).split('\n');
    const start = july.findIndex((l) => l.startsWith('============ Serving Benchmark Result'));
    const labels = (lines: string[]) => lines.map((l) => l.slice(0, 40));
    // Same layout, line for line (labels), up to our Fail-fast block.
    expect(labels(ours.slice(0, july.length - 1 - start))).toEqual(labels(july.slice(start, -1)));
    expect(ours[1]).toBe('Successful requests:                     6         ');
    expect(ours[2]).toBe('Failed requests:                         2         ');
  });

  it('prints the rate for a finite rate, skips blocks without samples and the audio block without audio', () => {
    const extras = { percentileMetrics: ['ttft', 'e2el', 'audio_ttfp'], metricPercentiles: [99.9] };
    const text = formatSummary(resultFor([3], { requestRate: 2.5, maxConcurrency: null }, extras), extras);
    expect(text).toContain('Request rate configured (RPS):           2.50      \n');
    expect(text).not.toContain('Maximum request concurrency:');
    expect(text).toContain('P99.9 TTFT (ms):');
    expect(text).not.toContain('Audio Result');
    expect(text).not.toContain('Inter-token Latency');
    const none = formatSummary(resultFor([8]), EXTRAS);
    expect(none).not.toContain('Time to First Token');
    // Upstream writes (and prints) an all-failed run's E2EL statistics as 0.00: np.mean(e2els or 0).
    expect(none).toContain('End-to-end Latency');
  });

  it("prints a PCM stream's continuity rate from the result, and 100% for a chat stream (no check)", () => {
    const chat = resultFor([1, 2, 3]);
    expect(formatSummary(chat, EXTRAS)).toContain(`${'Streaming continuity OK rate:'.padEnd(40)} 100.00%`);
    const speech = { ...chat, audio_continuity_ok_rate: 2 / 3, mean_audio_underrun_s: 0.25, p90_audio_underrun_s: 0.4 };
    const text = formatSummary(speech);
    expect(text).toContain(`${'Streaming continuity OK rate:'.padEnd(40)} 66.67%`);
    // The underrun statistics are found among the result's keys like every other selected metric.
    expect(text).toContain('P90 AUDIO_UNDERRUN (s):');
  });

  it('with --goodput, result and summary carry request_goodput where vLLM puts them', () => {
    const { records, durationS } = runSequence([1, 2, 3]);
    const metrics = calculateMetrics(records, { durationS, ...EXTRAS, goodput: { e2el: 60_000 } });
    const result = resultFor([1, 2, 3], { metrics });
    expect(result.request_goodput).toBeCloseTo(3 / durationS, 12);
    const keys = Object.keys(result);
    expect(keys.indexOf('request_goodput')).toBe(keys.indexOf('request_throughput') + 1);
    const lines = formatSummary(result, EXTRAS).split('\n');
    const at = lines.findIndex((l) => l.startsWith('Request throughput (req/s):'));
    expect(lines[at + 1]).toBe(`Request goodput (req/s):                 ${fixed2(3 / durationS).padEnd(10)}`);
    expect(formatSummary(resultFor([1, 2, 3]), EXTRAS)).not.toContain('goodput');
  });

  it('ends with a Fail-fast section: cause, counts, verdict and reasons', () => {
    const records = [...runSequence([1]).records, placeholderRecord(10, 'REQ_CANCELLED', 'never sent')];
    const counts = {
      total: 2,
      completed: 1,
      failed: 0,
      timedOut: 0,
      cancelledAfterTimeout: 1,
      cancelled: 0,
      errored: 0,
      unsent: 1,
    };
    const metrics = calculateMetrics(records, { durationS: 1, ...EXTRAS });
    const v = evaluateVerdict({ counts, metrics, thresholds: ['failed==0'] });
    const result = resultFor([1], {
      records,
      metrics,
      counts,
      statuses: ['completed', 'not_dispatched'],
      failFast: {
        enabled: true,
        tripped: true,
        cause: { requestIndex: 7, requestId: 'run-7', kind: 'idle', elapsedS: 30, lastPhase: 'hift' },
      },
      verdict: v.verdict,
      verdictReasons: v.reasons,
    });
    const text = formatSummary(result, EXTRAS);
    const tail = text.slice(text.indexOf(' Fail-fast '));
    expect(tail).toContain('Fail-fast enabled:                       yes');
    expect(tail).toContain('Breaker tripped:                         yes');
    expect(tail).toContain('request 7 (run-7): idle timeout after 30.00 s, last phase hift');
    expect(tail).toContain('Cancelled after timeout:                 1');
    expect(tail).toContain('Unsent:                                  1');
    expect(tail).toContain('Verdict:                                 failed_closed');
    expect(tail).toContain('  - threshold failed==0 failed: failed = 1');
    expect(text.endsWith('='.repeat(50) + '\n')).toBe(true);
  });

  it('a stop rule and liveness at the stall: the rules, the trip with its evidence, then what the server answered', () => {
    const stoppedBy: StoppedBy = {
      kind: 'no_progress',
      rule: 'no_progress>=60s',
      atS: 75.5,
      value: 60.02,
      requests: [{ index: 3, requestId: 'run-3' }],
      omitted: 0,
    };
    const result = resultFor([1], {
      failFast: { enabled: true, tripped: true, cause: null, stopOn: ['no_progress>=60s', 'timeouts>=1'], stoppedBy },
    });
    result.liveness_at_stall = {
      summary: "The server answers health in 3 ms, but none of the run's 1 request in flight has received a byte.",
      probes: [
        { name: 'health', method: 'GET', path: '/health', outcome: 'answered', status: 200, ms: 3.2, error: null },
        {
          name: 'text',
          method: 'POST',
          path: '/v1/chat/completions',
          outcome: 'timed_out',
          status: null,
          ms: 2000,
          error: 'no reply within 2000 ms',
        },
      ],
    };
    const text = formatSummary(result, EXTRAS);
    expect(text).toContain('Stop rules:                              no_progress>=60s, timeouts>=1');
    expect(text).toContain(
      'Stopped by:                              no_progress>=60s at 75.50 s: 1 request in flight (#3), none received a byte for 60.0 s',
    );
    const tail = text.slice(text.indexOf(' Liveness at the stall '));
    expect(tail.split('\n').slice(1, 4)).toEqual([
      "The server answers health in 3 ms, but none of the run's 1 request in flight has received a byte.",
      'GET /health:                             answered 200 in 3 ms',
      'POST /v1/chat/completions:               timed_out after 2000 ms (no reply within 2000 ms)',
    ]);
    // Without them, neither block appears.
    const plain = formatSummary(resultFor([1]), EXTRAS);
    expect(plain).not.toContain('Stopped by:');
    expect(plain).not.toContain('Liveness at the stall');
  });
});
