/**
 * `openai-audio-speech`: `POST /v1/audio/speech` streaming raw PCM
 * (docs/design.md#backends, #speech-metrics), as vLLM-Omni's
 * `async_request_openai_audio_speech` sends and reads it. The body is
 * `{model, input, stream: true, stream_format: "audio", response_format:
 * "pcm"}`, then `ignore_eos` (random dataset), then `--extra-body` merged at
 * the top level (the voice comes from there, as upstream), then the row's
 * own keys (a Seed-TTS row's reference audio and text). The PCM format is
 * read from vLLM-Omni's environment variables; the continuity threshold
 * too.
 */
import { DEFAULT_CONTINUITY_THRESHOLD_S } from '../../../shared/metrics/continuity.ts';
import type { MetricInput, RecordList } from '../../../shared/metrics/input.ts';
import type { RunConfig } from '../../../shared/config/runConfig.ts';
import type { SampleRequest } from '../datasets/sample.ts';
import { PcmReader, type PcmFormat, type ResponseReading } from '../transport/index.ts';
import { requestsStageMetrics } from './requestBody.ts';
import type { Backend } from './backend.ts';

export const SAMPLE_RATE_ENV = 'VLLM_OMNI_BENCH_AUDIO_SAMPLE_RATE';
export const CHANNELS_ENV = 'VLLM_OMNI_BENCH_AUDIO_CHANNELS';
export const CONTINUITY_THRESHOLD_ENV = 'VLLM_OMNI_BENCH_AUDIO_CONTINUITY_THRESHOLD_S';

async function buildSpeechBody(config: RunConfig, sample: SampleRequest): Promise<string> {
  const body: Record<string, unknown> = {
    model: config.target.servedModelName || config.target.model,
    input: promptText(sample.messages),
    stream: true,
    stream_format: 'audio',
    response_format: 'pcm',
  };
  // vLLM sets ignore_eos for the random dataset on every OpenAI-compatible backend, before the extra body.
  if (config.workload.ignoreEos || sample.bodyDefaults?.ignore_eos === true) body.ignore_eos = true;
  if (config.workload.extraBody) Object.assign(body, config.workload.extraBody);
  if (requestsStageMetrics(config) && !('return_stage_metrics' in body)) body.return_stage_metrics = true;
  if (sample.rowBody) Object.assign(body, sample.rowBody);
  if (sample.loadRowBody) Object.assign(body, await sample.loadRowBody());
  return JSON.stringify(body);
}

/**
 * The sample's prompt as vLLM's request input carries it (`request.prompt`): the text of the last user
 * message (its text parts joined), which is what every dataset here puts the prompt in.
 */
export function promptText(messages: readonly unknown[]): string {
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i] as { role?: unknown; content?: unknown } | null;
    if (!m || m.role !== 'user') continue;
    if (typeof m.content === 'string') return m.content;
    if (!Array.isArray(m.content)) return '';
    return m.content
      .map((part: { type?: unknown; text?: unknown } | null) =>
        part && part.type === 'text' && typeof part.text === 'string' ? part.text : '',
      )
      .join('');
  }
  return '';
}

/** vLLM-Omni's `stream_pcm_format_from_env` and `_audio_continuity_threshold_s`: bad values warn, defaults hold. */
export function pcmFormatFromEnv(env: NodeJS.ProcessEnv, warn: (message: string) => void): PcmFormat {
  const int = (name: string, fallback: number): number => {
    const raw = env[name];
    if (!raw) return fallback;
    const text = raw.trim();
    if (!/^[+-]?\d+$/.test(text)) {
      warn(`Invalid ${name}=${JSON.stringify(raw)}; using default ${fallback}`);
      return fallback;
    }
    return Number.parseInt(text, 10);
  };
  const sampleRate = Math.max(int(SAMPLE_RATE_ENV, 24000), 1);
  const channels = Math.max(int(CHANNELS_ENV, 1), 1);
  let continuityThresholdS = DEFAULT_CONTINUITY_THRESHOLD_S;
  const raw = env[CONTINUITY_THRESHOLD_ENV];
  if (raw) {
    const value = raw.trim() === '' ? Number.NaN : Number(raw);
    if (Number.isNaN(value)) {
      warn(
        `Invalid ${CONTINUITY_THRESHOLD_ENV}=${JSON.stringify(raw)}; using default ${DEFAULT_CONTINUITY_THRESHOLD_S}s`,
      );
    } else continuityThresholdS = Math.max(value, 0);
  }
  return { sampleRate, channels, continuityThresholdS };
}

/** WAV's media types: a container whose header (44 bytes or more) is not samples. */
const WAV_TYPES = new Set(['audio/wav', 'audio/wave', 'audio/x-wav', 'audio/vnd.wave']);

/**
 * A 200 whose type says it is a page or a JSON document, not audio, or a
 * WAV file, not the raw PCM asked for (upstream would count either's bytes,
 * a WAV's header included, as PCM samples).
 */
function notAudio(contentType: string | null): string | null {
  const type = contentType?.split(';')[0].trim().toLowerCase() ?? '';
  if (type.startsWith('text/') || type === 'application/json' || type.endsWith('+json'))
    return `response is not audio: ${type}`;
  if (WAV_TYPES.has(type))
    return `response is ${type}, not the raw PCM asked for (response_format "pcm"): its header would be read as samples`;
  return null;
}

function speechReading(env: NodeJS.ProcessEnv, warn: (message: string) => void): ResponseReading {
  const format = pcmFormatFromEnv(env, warn);
  return {
    open: (record, opts) => new PcmReader(record, opts, format),
    notAnAnswer: (contentType) => notAudio(contentType),
    wrongBody: 'REQ_NOT_AUDIO_STREAM',
  };
}

/**
 * The continuity figures vLLM-Omni's metrics compute over successful requests (`audio_continuity_ok_rate`,
 * 1.0 when none), and with `--save-detailed` the per-request fields, in dataset order.
 */
function speechResultKeys(records: RecordList<MetricInput>, detailed: boolean): Record<string, unknown> {
  let ok = 0;
  let completed = 0;
  for (const r of records) {
    if (!r.success) continue;
    completed++;
    if (r.audioContinuityOk ?? true) ok++;
  }
  const out: Record<string, unknown> = { audio_continuity_ok_rate: completed > 0 ? ok / completed : 1.0 };
  if (detailed) {
    out.audio_underrun_s = Array.from(records, (r) => r.audioUnderrunS ?? 0);
    out.audio_continuity_ok = Array.from(records, (r) => r.audioContinuityOk ?? true);
    out.audio_underrun_event_count = Array.from(records, (r) => r.audioUnderrunEventCount ?? 0);
  }
  return out;
}

export const SPEECH_BACKEND: Backend = {
  name: 'openai-audio-speech',
  buildBody: buildSpeechBody,
  reading: speechReading,
  // async_request_openai_audio_speech has no retry loop: a transport error fails the request.
  maxAttempts: 1,
  resultKeys: speechResultKeys,
  // Read as PCM, the recorded chat answer still warms the request path (pool, exchange, timers, reader).
  warmsWithRecordedChat: true,
  speaksPrompt: true,
};
