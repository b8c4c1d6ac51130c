/**
 * Named, ready-to-run RunSpecs. `GET /api/presets` serves these; the web
 * form offers them. Each must pass `runSpecIssues` without errors (tested).
 */
import type { Preset, RunSpec } from './runSpec.ts';

/**
 * What both presets share: the nightly MiniCPM-o job's shape (model, endpoint,
 * 1,088 requests at concurrency 10, rate inf, text+audio, its percentile set).
 */
const NIGHTLY_SHAPE = {
  model: 'openbmb/MiniCPM-o-4_5',
  backend: 'openai-chat-omni',
  endpoint: '/v1/chat/completions',
  numPrompts: 1088,
  maxConcurrency: 10,
  requestRate: 'inf',
  burstiness: 1,
  selfTimed: false,
  seed: 0,
  numWarmups: 0,
  extraBody: { modalities: ['text', 'audio'] },
  percentileMetrics: ['ttft', 'tpot', 'itl', 'e2el', 'audio_ttfp', 'audio_rtf'],
  metricPercentiles: [99],
  // What the server still answers at the stall (docs/design.md#liveness-at-stall): on in the dashboard.
  livenessAtStall: true,
} satisfies Partial<Preset['spec']>;

/**
 * Reproduces the incident on the embedded repro server in seconds instead of hours:
 * the Code2Wav worker blocks in `hift` after a few operations; the watchdog
 * (1 s) captures the blocked thread's stack long before the total timeout
 * (8 s) fires — with margin for a loaded machine, where the first decodes
 * take ~1 s each — fail-fast then cancels everything else, so the run ends
 * `failed_closed` with a stall report in about 9 s.
 */
/** The embedded repro server whose Code2Wav stage blocks in hift at its 3rd operation (both hang presets). */
const HIFT_HANG_TARGET: RunSpec['target'] = {
  kind: 'embedded',
  faults: [{ phase: 'hift', kind: 'block', after: 3 }],
  watchdogTimeoutS: 1,
  workers: 1,
  maxBatch: 4,
  seed: 0,
};

export const CODE2WAV_HANG: Preset = {
  id: 'code2wav-hang',
  title: 'Reproduce the Code2Wav hang (embedded)',
  description:
    'Embedded repro server, 1,088 requests, concurrency 10, rate inf, 8 s total timeout, fail-fast on, watchdog 1 s, a block fault in hift at the 3rd operation. Ends failed closed with a stall report in about 9 s.',
  spec: {
    label: 'code2wav-hang',
    metadata: { preset: 'code2wav-hang' },
    target: HIFT_HANG_TARGET,
    ...NIGHTLY_SHAPE,
    dataset: { name: 'random', inputLen: 32, outputLen: 16 },
    timeouts: { totalS: 8 },
    failFast: true,
    thresholds: [],
  },
};

/** The nightly CI job's shape, pointed at a real server: fill in the URL and dataset path. */
export const SEED_TTS_URL: Preset = {
  id: 'seed-tts-url',
  title: 'Seed-TTS accuracy against a URL',
  description:
    'MiniCPM-o 4.5 Seed-TTS (en), 1,088 requests, concurrency 10, rate inf, 900 s timeout, fail-fast on, against a vLLM-Omni server at a URL; WER gate (mean ≤ 0.05) through a Whisper transcription server at :8001.',
  spec: {
    label: 'seed-tts-accuracy',
    metadata: {},
    target: { kind: 'url', baseUrl: 'http://127.0.0.1:8000' },
    ...NIGHTLY_SHAPE,
    dataset: {
      name: 'seed-tts',
      path: '../seed-tts-eval',
      locale: 'en',
      noOversample: true,
      werEval: { enabled: true, asrUrl: 'http://127.0.0.1:8001', asrModel: 'openai/whisper-large-v3', saveItems: true },
    },
    timeouts: { totalS: 900 },
    failFast: true,
    thresholds: ['failed==0', 'seed_tts_content_error_mean<=0.05'],
  },
};

/**
 * The same hang over realtime WebSocket sessions (docs/design.md#realtime): 10 sessions of 4 turns, 3
 * sessions at once; the hung turn's idle timeout (2 s) trips fail-fast, the turns waiting behind it are
 * cancelled, and every WebSocket is closed within the stop's deadline.
 */
export const REALTIME_HANG: Preset = {
  id: 'realtime-hang',
  title: 'Reproduce the hang over a realtime session',
  description:
    'Embedded repro server, openai-realtime-tts on /v1/realtime: 40 prompts as 10 WebSocket sessions of 4 turns, 3 sessions at once, 2 s idle timeout, fail-fast on, watchdog 1 s, a block fault in hift at the 3rd operation. Ends failed closed with a stall report in a few seconds.',
  spec: {
    label: 'realtime-hang',
    metadata: { preset: 'realtime-hang' },
    target: HIFT_HANG_TARGET,
    ...NIGHTLY_SHAPE,
    backend: 'openai-realtime-tts',
    endpoint: '/v1/realtime',
    numPrompts: 40,
    turnsPerSession: 4,
    maxConcurrency: 3,
    extraBody: { save_duplex_request_metrics: true },
    percentileMetrics: ['ttft', 'e2el', 'audio_ttfp', 'audio_rtf'],
    dataset: { name: 'random', inputLen: 32, outputLen: 16 },
    timeouts: { totalS: 30, idleS: 2 },
    failFast: true,
    thresholds: [],
  },
};

export const PRESETS: Preset[] = [CODE2WAV_HANG, REALTIME_HANG, SEED_TTS_URL];
