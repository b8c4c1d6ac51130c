/**
 * The realtime backends' own result keys (docs/design.md#realtime), as
 * vLLM-Omni's duplex client computes them: per turn a request metric
 * (`timing_summary`'s `request_metrics`, client receive times, ms rounded to
 * 3 digits) with its RTF (audio generation / audio duration, 6 digits), and
 * per session `summarize_session_request_metrics`'s distributions
 * `{count, mean, p50, p99}` (nearest rank) of `ttft_ms`, `ttfp_ms`, `rtf`.
 */
import { writeStatKeys } from './stats.ts';

/** One turn's client receive times (monotonic seconds) and audio, as the engine saw them. */
export interface RealtimeTurnTiming {
  sessionId: string;
  /** The turn's place in its session. */
  turn: number;
  responseId: string | null;
  /** The turn's send (tts) or the end of its input speech (duplex). */
  originTs: number;
  firstTextTs: number | null;
  firstAudioTs: number | null;
  lastAudioTs: number | null;
  audioBytes: number;
  doneTs: number | null;
  outputTokens: number | null;
  /** Duplex only: how the turn was ended. */
  trigger?: 'explicit' | 'vad';
  /** The native tts flow: timed from the first silent chunk (docs/design.md#realtime). */
  native?: boolean;
  /** Native: the response carried stage-0 engine metrics (its entry then has `tpot_ms`). */
  stage0?: boolean;
  /** Native: stage 0's `vllm_tpot_ms` when a finite number ≥ 0, else null. */
  tpotMs?: number | null;
}

export interface DistributionSummary {
  count: number;
  mean: number;
  p50: number;
  p99: number;
}

/** Python's round(x, digits) for the values at hand (ties are rare on measured times; half away from zero). */
export function pyRound(x: number, digits: number): number {
  const f = 10 ** digits;
  return Math.round(x * f) / f;
}

export function distributionSummary(values: readonly number[], digits = 3): DistributionSummary | null {
  const clean = values.filter((v) => Number.isFinite(v)).sort((a, b) => a - b);
  if (clean.length === 0) return null;
  const rank = (p: number) => clean[Math.min(Math.max(0, Math.ceil(p * clean.length) - 1), clean.length - 1)];
  const mean = clean.reduce((a, b) => a + b, 0) / clean.length;
  return {
    count: clean.length,
    mean: pyRound(mean, digits),
    p50: pyRound(rank(0.5), digits),
    p99: pyRound(rank(0.99), digits),
  };
}

const TTS_ORIGIN = {
  ttft: 'conversation.item.create client send to first non-empty text delta',
  ttfp: 'conversation.item.create client send to first audio packet',
  rtf: 'request-start-to-last-audio receive time divided by emitted audio duration',
};
const NATIVE_ORIGIN = {
  ttft: 'first silence append client send to first non-empty text delta',
  ttfp: 'first silence append client send to first audio packet',
  rtf: 'request-start-to-last-audio receive time divided by emitted audio duration',
};
/** A native response with stage-0 metrics also says where its TPOT comes from (clients/duplex.py `timing_summary`). */
const NATIVE_STAGE0_ORIGIN = { ...NATIVE_ORIGIN, tpot: 'Stage-0 engine mean time per output token' };
const DUPLEX_ORIGIN = {
  ttft: 'end of reference speech to first non-empty text delta',
  ttfp: 'end of reference speech to first audio packet',
  rtf: 'end of reference speech to last audio packet divided by output audio duration',
};

/** One turn's `duplex_request_metrics` entry; null for a turn with no audio (vLLM-Omni fails such a session). */
export function turnRequestMetric(t: RealtimeTurnTiming, sampleRateHz: number): Record<string, unknown> | null {
  if (t.firstAudioTs === null || t.lastAudioTs === null) return null;
  const ms = (s: number) => pyRound(s * 1000, 3);
  const audioDurationMs = ms(t.audioBytes / 2 / sampleRateHz);
  const audioGenerationMs = ms(Math.max(0, t.lastAudioTs - t.originTs));
  const stage0 = t.native === true && t.stage0 === true;
  return {
    session_id: t.sessionId,
    request_index: t.turn,
    // Upstream writes the Seed-TTS row's utterance id, null without one (stallscope's turns carry none).
    utterance_id: null,
    response_id: t.responseId,
    source: 'client_monotonic_receive',
    measurement_origin: t.trigger
      ? DUPLEX_ORIGIN
      : stage0
        ? NATIVE_STAGE0_ORIGIN
        : t.native
          ? NATIVE_ORIGIN
          : TTS_ORIGIN,
    ttft_ms: t.firstTextTs === null ? null : ms(t.firstTextTs - t.originTs),
    ttfp_ms: ms(t.firstAudioTs - t.originTs),
    audio_generation_ms: audioGenerationMs,
    audio_duration_ms: audioDurationMs,
    // Upstream appends it to the response's request metrics, before the RTF the benchmark adds.
    ...(stage0 ? { tpot_ms: t.tpotMs ?? null } : {}),
    rtf: audioDurationMs > 0 ? pyRound(audioGenerationMs / 1000 / (audioDurationMs / 1000), 6) : 0,
    ...(t.trigger ? { trigger: t.trigger } : {}),
  };
}

/** One session's `duplex_session_metrics` entry from its turns' request metrics. */
export function sessionSummary(
  sessionId: string,
  metrics: readonly Record<string, unknown>[],
): Record<string, unknown> {
  const values = (key: string) =>
    metrics.flatMap((m) => (typeof m[key] === 'number' && Number.isFinite(m[key]) ? [m[key]] : []));
  // Upstream omits zero (or missing) TPOTs, and the key when none is left.
  const tpot = distributionSummary(values('tpot_ms').filter((v) => v > 0));
  return {
    session_id: sessionId,
    audio_turn_count: metrics.length,
    ttft_ms: distributionSummary(values('ttft_ms')),
    ttfp_ms: distributionSummary(values('ttfp_ms')),
    rtf: distributionSummary(values('rtf'), 6),
    ...(tpot ? { tpot_ms: tpot } : {}),
  };
}

/**
 * The `duplex_request_metrics` and `duplex_session_metrics` keys: sessions
 * whose every turn completed (vLLM-Omni keeps a session's metrics only when
 * the whole session succeeded), in dataset order. Empty when none did.
 */
export function realtimeResultKeys(
  turns: readonly { timing: RealtimeTurnTiming | null; success: boolean }[],
  sampleRateHz: number,
): Record<string, unknown> {
  const bySession = new Map<string, { ok: boolean; metrics: Record<string, unknown>[] }>();
  for (const { timing, success } of turns) {
    if (!timing) continue;
    let s = bySession.get(timing.sessionId);
    if (!s) bySession.set(timing.sessionId, (s = { ok: true, metrics: [] }));
    const metric = success ? turnRequestMetric(timing, sampleRateHz) : null;
    if (metric === null) s.ok = false;
    else s.metrics.push(metric);
  }
  const requests: Record<string, unknown>[] = [];
  const sessions: Record<string, unknown>[] = [];
  for (const [id, s] of bySession) {
    if (!s.ok) continue;
    requests.push(...s.metrics);
    sessions.push(sessionSummary(id, s.metrics));
  }
  return requests.length ? { duplex_request_metrics: requests, duplex_session_metrics: sessions } : {};
}

/**
 * Realtime turns only (docs/design.md#realtime): the turn's session, its place there, its response and how its
 * input ended (duplex), and its receive times from the turn's origin in seconds (TTFT absent without text; TTFP and
 * the audio generation time absent without audio, `response.done` absent without one), with the PCM bytes received. The engine's record carries them
 * (columns of the same names).
 */
export interface RealtimeTurnFields {
  realtimeSessionId?: string;
  realtimeTurn?: number;
  realtimeResponseId?: string;
  realtimeTrigger?: 'explicit' | 'vad';
  realtimeTtftS?: number;
  realtimeTtfpS?: number;
  realtimeGenerationS?: number;
  realtimeAudioBytes?: number;
  /** `response.done`'s receive time from the turn's origin: the turn-level E2EL (the native flow's stallscope key). */
  realtimeDoneS?: number;
  /** Native: the response carried stage-0 engine metrics. */
  realtimeStage0?: boolean;
  /** Native: stage 0's reported TPOT in ms (absent when it reported none usable). */
  realtimeTpotMs?: number;
}

/** What a realtime turn's request row keeps. */
export interface RealtimeTurnRow extends RealtimeTurnFields {
  success: boolean;
  outputTokens: number;
}

/**
 * A row's turn timing, its times measured from the turn's origin (so the origin is 0 and every
 * difference is the value the client measured); null for a row that never reached its session.
 */
export function turnTimingOf(r: RealtimeTurnRow): RealtimeTurnTiming | null {
  if (r.realtimeSessionId === undefined || r.realtimeTurn === undefined) return null;
  return {
    sessionId: r.realtimeSessionId,
    turn: r.realtimeTurn,
    responseId: r.realtimeResponseId ?? null,
    originTs: 0,
    firstTextTs: r.realtimeTtftS ?? null,
    firstAudioTs: r.realtimeTtfpS ?? null,
    lastAudioTs: r.realtimeGenerationS ?? null,
    audioBytes: r.realtimeAudioBytes ?? 0,
    doneTs: r.realtimeDoneS ?? null,
    outputTokens: r.outputTokens,
    ...(r.realtimeTrigger ? { trigger: r.realtimeTrigger } : {}),
    ...(r.realtimeStage0 ? { stage0: true, tpotMs: r.realtimeTpotMs ?? null } : {}),
  };
}

/**
 * The native flow's turn-level E2EL (first silent chunk → `response.done`, client receive times) under
 * stallscope's own keys, beside upstream's session-level `*_e2el_ms` (docs/design.md#realtime): mean, median and
 * the run's `--metric-percentiles`, numpy's rules as the other E2EL keys, over the completed turns. Named
 * `*_turn_e2el_ms` so no upstream key is shadowed; none without a completed turn.
 */
export function turnE2elKeys(
  rows: Iterable<{ success: boolean; realtimeDoneS?: number }>,
  percentiles: readonly number[],
): Record<string, number> {
  const values: number[] = [];
  for (const r of rows) if (r.success && r.realtimeDoneS !== undefined) values.push(r.realtimeDoneS * 1000);
  if (values.length === 0) return {};
  const out: Record<string, number> = { num_turn_e2el_samples: values.length };
  writeStatKeys(out, 'turn_e2el_ms', Float64Array.from(values), percentiles);
  return out;
}
