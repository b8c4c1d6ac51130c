/**
 * Builders for vLLM-Omni `openai-chat-omni` stream events (docs/design.md#stream):
 * the role chunk, text deltas with cumulative usage, audio chunks whose
 * content is the base64 of a complete WAV file, the usage-only final event,
 * and in-stream errors. Every content event carries `modality`; `metrics`
 * only when the request asked for stage metrics (`return_stage_metrics`):
 * stage 0's count on every event, and its token timing (`vllm_ttft_ms`,
 * `vllm_tpot_ms`, `vllm_itls_ms`, one interval per token as usage counts
 * them) from the event with its last token on, once stage 0 has finished.
 */
import type { ChatRequest } from '../requests/chatRequest.ts';
import type { Stage0Snapshot } from '../realtime/stageMetrics.ts';

export interface StageCounters {
  tokens: number;
  textFinish: string | null;
  audioFrames: number;
  sampleRate: number;
  /** Stage 0's token timing once its last token left (null before, and when it never finished). */
  stage0Timing?: Stage0Snapshot | null;
}

/** Stage 0's engine entry: the text stage's count and finish, and its token timing once it has finished. */
export function stage0Entry(tokens: number, finish: string | null, timing: Stage0Snapshot | null | undefined) {
  return {
    stage_id: 0,
    final_output_type: 'text',
    num_tokens_out: tokens,
    finish_reason: finish,
    ...(timing
      ? { vllm_ttft_ms: timing.vllm_ttft_ms, vllm_tpot_ms: timing.vllm_tpot_ms, vllm_itls_ms: timing.vllm_itls_ms }
      : {}),
  };
}

export class ChunkFactory {
  constructor(
    private readonly id: string,
    private readonly created: number,
    private readonly model: string,
    private readonly req: ChatRequest,
    private readonly counters: StageCounters,
  ) {}

  private usage(completion: number) {
    return {
      prompt_tokens: this.req.promptTokens,
      total_tokens: this.req.promptTokens + completion,
      completion_tokens: completion,
    };
  }

  private metrics() {
    const c = this.counters;
    const m: Record<string, unknown> = { '0': stage0Entry(c.tokens, c.textFinish, c.stage0Timing) };
    if (this.req.wantAudio) {
      m['2'] = {
        stage_id: 2,
        final_output_type: 'audio',
        audio_frames: c.audioFrames,
        audio_duration_s: c.audioFrames / c.sampleRate,
      };
    }
    // Keyed by stage id under `stage_metrics`, with the text stage's count on top, as the client reads it.
    return { num_tokens_out: c.tokens, stage_metrics: m };
  }

  private chunk(delta: Record<string, unknown>, finish: string | null, completion: number, modality: 'text' | 'audio') {
    return {
      id: this.id,
      object: 'chat.completion.chunk',
      created: this.created,
      model: this.model,
      choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
      ...(this.req.continuousUsage ? { usage: this.usage(completion) } : {}),
      modality,
      ...(this.req.stageMetrics ? { metrics: this.metrics() } : {}),
    };
  }

  role() {
    return this.chunk({ role: 'assistant', content: '' }, null, 0, 'text');
  }

  text(content: string, finish: string | null) {
    return this.chunk({ content }, finish, this.counters.tokens, 'text');
  }

  /** Audio usage always reports 0 completion tokens, as vLLM-Omni attaches it. */
  audio(wavBase64: string, finish: string | null) {
    return this.chunk({ role: 'assistant', content: wavBase64 }, finish, 0, 'audio');
  }

  /** A requested modality that produced nothing still ends with `stop` (no modality key). */
  fallbackStop() {
    return {
      id: this.id,
      object: 'chat.completion.chunk',
      created: this.created,
      model: this.model,
      choices: [{ index: 0, delta: {}, finish_reason: 'stop' }],
    };
  }

  final() {
    return {
      id: this.id,
      object: 'chat.completion.chunk',
      created: this.created,
      model: this.model,
      choices: [],
      usage: this.usage(this.counters.tokens),
    };
  }
}

/**
 * Stage 2's `audio_duration_s` as vLLM-Omni's server writes it: a Python float (`frames / rate`), so a whole one is
 * `4.0` where JSON.stringify writes `4`. Upstream's client copies the value verbatim into its result file's
 * `request_stage_metrics`, so the spelling is part of what this server reproduces. Only the key as JSON.stringify
 * writes it matches (a quoted copy inside a string has an escaped quote before its colon).
 */
const WHOLE_AUDIO_DURATION = /"audio_duration_s":(-?\d+)(?=[,}])/g;

export const sseData = (obj: unknown): string => {
  const json = JSON.stringify(obj);
  return `data: ${json.includes('"audio_duration_s":') ? json.replace(WHOLE_AUDIO_DURATION, '"audio_duration_s":$1.0') : json}\n\n`;
};
export const SSE_DONE = 'data: [DONE]\n\n';

/** An in-stream error, as vLLM-Omni sends it (HTTP status stays 200). */
export function streamError(message: string, type = 'InternalServerError', code = 500) {
  return { error: { message, type, param: null, code } };
}
