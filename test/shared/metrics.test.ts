/** Metric math from hand-computed streams (docs/design.md#per-request-metrics), and numpy parity of the statistics. */
import { describe, expect, it } from 'vitest';
import {
  calculateMetrics,
  exactMaxConcurrency,
  mean,
  median,
  npSum,
  outputLength,
  percentile,
  percentileLabel,
  requestTpot,
  timelinePeaks,
  type MetricInput,
} from '#shared/metrics/index.ts';
import type { RecordList } from '#shared/metrics/input.ts';
import { mulberry32 } from '#server/repro/code2wav/kernels/rng.ts';
import { ORACLE_DIR, readJson } from '../fixtures/golden-helpers/golden.ts';

const req = (over: Partial<MetricInput>): MetricInput => ({
  success: true,
  ttft: 0.1,
  itl: [],
  latency: 1,
  outputTokens: 0,
  promptLen: 10,
  generatedText: 'x',
  audioTtfp: 0,
  audioDuration: 0,
  audioFrames: 0,
  audioRtf: 0,
  textLatency: 0.1,
  startTime: 0,
  ...over,
});
const ALL = {
  percentileMetrics: ['ttft', 'tpot', 'itl', 'e2el', 'audio_ttfp', 'audio_rtf', 'audio_duration'],
  metricPercentiles: [99],
};

describe('statistics (numpy parity)', () => {
  const ref = readJson<{
    cases: { values: number[]; sum: number; mean: number; median: number; percentiles: [number, number][] }[];
  }>('numpy-stats.json', ORACLE_DIR);

  it.each(ref.cases.map((c) => [c.values.length, c] as const))(
    'n=%i: sum, mean, median and percentiles equal numpy bit for bit',
    (_n, c) => {
      expect(npSum(c.values)).toBe(c.sum);
      expect(mean(c.values)).toBe(c.mean);
      expect(median(c.values)).toBe(c.median);
      for (const [p, v] of c.percentiles) expect(percentile(c.values, p)).toBe(v);
    },
  );

  it('hand-computed linear interpolation', () => {
    expect(percentile([1, 2, 3, 4], 50)).toBe(2.5);
    expect(percentile([10, 20], 90)).toBe(19);
    expect(percentile([4, 1, 3, 2], 0)).toBe(1);
    expect(percentile([4, 1, 3, 2], 100)).toBe(4);
    expect(percentile([0, 1000], 99.9)).toBeCloseTo(999, 9);
    expect(median([3, 1, 2])).toBe(2);
    expect(mean([])).toBeNaN();
  });

  it('labels percentiles as integers when whole', () => {
    expect([99, 99.0, 50, 99.9, 99.99, 0.5].map(percentileLabel)).toEqual(['99', '99', '50', '99.9', '99.99', '0.5']);
  });
});

describe('per-request rules', () => {
  it('output length: server count, else 0 for audio-only text-less, else 1; 0 when failed', () => {
    expect(outputLength(req({ outputTokens: 7 }))).toBe(7);
    expect(outputLength(req({ generatedText: '', audioDuration: 1 }))).toBe(0);
    expect(outputLength(req({ generatedText: 'hi' }))).toBe(1);
    expect(outputLength(req({ success: false, outputTokens: 7 }))).toBe(0);
  });

  it('tpot = mean(itl) when output > 1; fallback (text_latency − ttft)/(n − 1) without itl; none otherwise', () => {
    expect(requestTpot(req({ itl: [0, 0.06, 0.03] }), 4)).toBeCloseTo(0.03, 15);
    expect(requestTpot(req({ itl: [], ttft: 0.2, textLatency: 0.5 }), 4)).toBeCloseTo(0.1, 15);
    expect(requestTpot(req({ itl: [0.05] }), 1)).toBeNull();
    expect(requestTpot(req({ itl: [0, 0] }), 3)).toBeNull(); // no positive interval: not a sample (current upstream)
    expect(requestTpot(req({ itl: [], ttft: 0.2, textLatency: 0.2 }), 3)).toBeNull();
  });
});

describe('calculateMetrics from hand-computed streams', () => {
  // Two requests, back to back. A: ttft 0.1, two tokens bundled then one (itl [0, 0.2]), latency 0.5.
  // B: ttft 0.3, itl [0.1], audio 1 s arriving at 0.4 and ending at 0.6 (rtf 0.6), latency 0.7.
  const a = req({
    ttft: 0.1,
    itl: [0, 0.2],
    latency: 0.5,
    outputTokens: 3,
    promptLen: 17,
    textLatency: 0.3,
    startTime: 10,
  });
  const b = req({
    ttft: 0.3,
    itl: [0.1],
    latency: 0.7,
    outputTokens: 2,
    promptLen: 20,
    audioTtfp: 0.4,
    audioDuration: 1,
    audioFrames: 24000,
    audioRtf: 0.6,
    startTime: 10.5,
  });
  const failed = req({
    success: false,
    ttft: 0.2,
    itl: [0.5],
    latency: 0,
    outputTokens: 4,
    promptLen: 99,
    startTime: 11,
  });
  const m = calculateMetrics([a, b, failed], { durationS: 2, ...ALL });

  it('counts, totals and throughputs use successful requests only; failed counts every other record', () => {
    expect(m).toMatchObject({
      duration: 2,
      completed: 2,
      failed: 1,
      total_input_tokens: 37,
      total_output_tokens: 5,
      request_throughput: 1,
      output_throughput: 2.5,
      total_token_throughput: 21,
      total_audio_duration_s: 1,
      total_audio_frames: 24000,
      audio_throughput: 0.5,
      rtfx: 0,
      total_images: 0,
    });
  });

  it('request_goodput: successful requests meeting every --goodput SLO (ms, inclusive), per second; only with --goodput', () => {
    const good = (goodput: Record<string, number>): number | undefined =>
      calculateMetrics([a, b, failed], { durationS: 2, ...ALL, goodput }).request_goodput;
    expect(good({ ttft: 200 })).toBe(0.5); // a (0.1 s) meets it, b (0.3 s) does not; the failed request never counts
    expect(good({ e2el: 700 })).toBe(1); // b's 0.7 s is exactly the SLO
    expect(good({ tpot: 100, e2el: 600 })).toBe(0.5); // a: tpot mean(0, 0.2) = 0.1 s, e2el 0.5 s; b misses e2el
    expect(good({ ttft: 50 })).toBe(0);
    expect(m.request_goodput).toBeUndefined();
    expect(good({})).toBeUndefined();
    // A single-token request has no tpot; vLLM counts it as 0, so it meets any tpot SLO.
    const single = req({ outputTokens: 1, itl: [] });
    expect(calculateMetrics([single], { durationS: 1, ...ALL, goodput: { tpot: 0 } }).request_goodput).toBe(1);
  });

  it('per-metric statistics in their units, zeros of audio-less requests averaged in', () => {
    expect(m.mean_ttft_ms).toBeCloseTo(200, 9);
    expect(m.mean_itl_ms).toBeCloseTo(100, 9); // [0, 0.2, 0.1]
    expect(m.mean_tpot_ms).toBeCloseTo(100, 9); // mean(0.1, 0.1)
    expect(m.mean_e2el_ms).toBeCloseTo(600, 9);
    expect(m.mean_audio_ttfp_ms).toBeCloseTo(200, 9); // (0 + 0.4) / 2
    expect(m.mean_audio_rtf).toBeCloseTo(0.3, 12); // no suffix
    expect(m.mean_audio_duration_s).toBeCloseTo(0.5, 12);
    expect(m.p99_e2el_ms).toBeCloseTo(698, 9);
    expect(m).toMatchObject({
      num_ttft_samples: 2,
      num_tpot_samples: 2,
      num_itl_samples: 3,
      num_e2el_samples: 2,
      num_audio_ttfp_samples: 2,
      num_audio_rtf_samples: 2,
    });
  });

  it('peak tokens per second and concurrency: 1-second buckets (vLLM-Omni) and the exact sweep', () => {
    // Token times: A at 10.1, 10.1, 10.3; B at 10.8, 10.9 → all in bucket 0 → 5.
    expect(m.max_output_tokens_per_s).toBe(5);
    // A spans [10, 10.5], B [10.5, 11.2]: buckets 0 (A, B) and 1 (B) → 2; exactly, they only touch → 1.
    expect(m.max_concurrent_requests).toBe(2);
    expect(m.max_concurrent_requests_exact).toBe(1);
    expect(
      exactMaxConcurrency([
        req({ startTime: 0, latency: 2 }),
        req({ startTime: 1, latency: 2 }),
        req({ startTime: 1.5, latency: 0.1 }),
      ]),
    ).toBe(3);
    expect(timelinePeaks([req({ success: false })])).toEqual({
      maxOutputTokensPerS: 0,
      maxConcurrentRequests: 0,
      maxConcurrentRequestsExact: 0,
    });
    // A hang: nothing completed, so vLLM's bucketed figure is 0, but ten requests held a slot for 8 s
    // (timed out or cancelled in flight, each with its end time): the exact sweep says 10.
    const hung = Array.from({ length: 10 }, (_, i) =>
      req({ success: false, latency: 0, startTime: 1 + i * 0.01, endTime: 9 + i * 0.001 }),
    );
    const neverSent = req({ success: false, latency: 0, startTime: 0 });
    expect(timelinePeaks([...hung, neverSent])).toEqual({
      maxOutputTokensPerS: 0,
      maxConcurrentRequests: 0,
      maxConcurrentRequestsExact: 10,
    });
    // A request with audio and no text seeds no token.
    expect(
      timelinePeaks([req({ generatedText: '', outputTokens: 0, itl: [], audioDuration: 1 })]).maxOutputTokensPerS,
    ).toBe(0);
  });

  it('reads each record once, by index (the engine builds a record on every read)', () => {
    const records = [
      req({ itl: [0.1] }),
      req({ success: false, endTime: 2 }),
      req({ startTime: 0.5, itl: [0.2, 0.3] }),
    ];
    let reads = 0;
    const list: RecordList<MetricInput> = {
      length: records.length,
      at: (i) => (reads++, records[i]),
      [Symbol.iterator]: () => {
        throw new Error('iterated');
      },
    };
    const m = calculateMetrics(list, { durationS: 2, ...ALL });
    expect(reads).toBe(3);
    expect(m).toMatchObject({ completed: 2, max_concurrent_requests: 2, max_concurrent_requests_exact: 3 });
  });

  it('peaks over seeded random runs equal the rule written out directly', () => {
    for (let seed = 1; seed <= 40; seed++) {
      const rnd = mulberry32(seed);
      const runs = Array.from({ length: 1 + Math.floor(rnd() * 40) }, () => {
        const itl = Array.from({ length: Math.floor(rnd() * 6) }, () => rnd() * 0.7);
        const startTime = 100 + rnd() * 6;
        const text = rnd() < 0.8;
        return req({
          success: rnd() < 0.75,
          startTime,
          ttft: rnd() * 0.5,
          itl: text ? itl : [],
          outputTokens: text ? itl.length + 1 : 0,
          generatedText: text ? 'x' : '',
          latency: rnd() * 3,
          endTime: rnd() < 0.5 ? startTime + rnd() * 4 : undefined,
        });
      });
      // The rule, one request and one second at a time.
      const ok = runs.filter((r) => r.success);
      const t0 = Math.min(...ok.map((r) => r.startTime));
      const buckets = ok.length ? Math.ceil(Math.max(...ok.map((r) => r.startTime + r.latency)) - t0) + 1 : 0;
      const tokens = new Array<number>(buckets).fill(0);
      const held = new Array<number>(buckets).fill(0);
      for (const r of ok) {
        const times = r.generatedText || r.itl.length ? [r.startTime + r.ttft] : [];
        for (const gap of r.itl) times.push(times[times.length - 1] + gap);
        for (const t of times) if (Math.trunc(t - t0) < buckets) tokens[Math.trunc(t - t0)]++;
        for (let b = Math.trunc(r.startTime - t0); b <= Math.trunc(r.startTime + r.latency - t0); b++) held[b]++;
      }
      const spans = runs.flatMap((r) => {
        const end = r.endTime ?? (r.success ? r.startTime + r.latency : null);
        return end === null ? [] : [[r.startTime, end]];
      });
      const exact = Math.max(0, ...spans.map(([at]) => spans.filter(([s, e]) => s <= at && at < e).length));
      const m = calculateMetrics(runs, { durationS: 1, ...ALL });
      const want = { tokens: Math.max(0, ...tokens), held: Math.max(0, ...held), exact };
      expect({ seed, ...want }).toEqual({
        seed,
        tokens: m.max_output_tokens_per_s,
        held: m.max_concurrent_requests,
        exact: m.max_concurrent_requests_exact,
      });
      expect(timelinePeaks(runs)).toEqual({
        maxOutputTokensPerS: want.tokens,
        maxConcurrentRequests: want.held,
        maxConcurrentRequestsExact: exact,
      });
    }
  });

  it('writes only the selected metrics and percentiles, with p99.9 naming', () => {
    const sel = calculateMetrics([a, b], {
      durationS: 2,
      percentileMetrics: ['ttft', 'audio_rtf'],
      metricPercentiles: [50, 99.9],
    });
    const statKeys = Object.keys(sel).filter(
      (k) => /^(mean|median|p[\d.]+)_/.test(k) && k !== 'mean_denoise_step_latency_ms',
    );
    expect(statKeys).toEqual([
      'mean_ttft_ms',
      'median_ttft_ms',
      'p50_ttft_ms',
      'p99.9_ttft_ms',
      'mean_audio_rtf',
      'median_audio_rtf',
      'p50_audio_rtf',
      'p99.9_audio_rtf',
    ]);
    expect(sel['p99.9_ttft_ms']).toBeCloseTo(299.8, 9);
  });

  it('a metric without samples gets no keys (never NaN), but its sample count is written; e2el and audio_duration are 0.0 as upstream writes them', () => {
    const none = calculateMetrics([failed], { durationS: 0, ...ALL });
    // vLLM's constant 0, then upstream's np.mean(e2els or 0) and np.mean(audio_duration or 0): an all-failed run's zeros.
    const stats = Object.keys(none).filter((k) => /^(mean|median|p\d)/.test(k));
    expect(stats).toEqual([
      'mean_denoise_step_latency_ms',
      'mean_e2el_ms',
      'median_e2el_ms',
      'p99_e2el_ms',
      'mean_audio_duration_s',
      'median_audio_duration_s',
      'p99_audio_duration_s',
    ]);
    expect(stats.every((k) => none[k] === 0)).toBe(true);
    expect(none).toMatchObject({
      completed: 0,
      failed: 1,
      num_ttft_samples: 0,
      num_tpot_samples: 0,
      request_throughput: 0,
    });
    expect(Object.values(none).every((v) => Number.isFinite(v))).toBe(true);
    // One-token requests: no TPOT sample, so no tpot keys, while ttft/itl keys stay.
    const one = calculateMetrics([req({ outputTokens: 1, itl: [] })], { durationS: 1, ...ALL });
    expect(one.num_tpot_samples).toBe(0);
    expect(one).not.toHaveProperty('mean_tpot_ms');
    expect(one).toHaveProperty('mean_ttft_ms');
    expect(one).not.toHaveProperty('mean_itl_ms');
    // No text at all (audio only): text statistics are skipped, audio ones kept.
    const audioOnly = calculateMetrics(
      [
        req({
          generatedText: '',
          outputTokens: 0,
          audioDuration: 1,
          audioFrames: 24000,
          audioTtfp: 0.2,
          audioRtf: 0.5,
        }),
      ],
      { durationS: 1, ...ALL },
    );
    expect(audioOnly).not.toHaveProperty('mean_ttft_ms');
    expect(audioOnly.mean_audio_ttfp_ms).toBeCloseTo(200, 9);
  });
});
