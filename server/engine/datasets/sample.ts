/**
 * One request of a dataset, before ids and the common body keys are added.
 */
export interface SampleRequest {
  /** Chat messages, sent verbatim. */
  messages: unknown[];
  /** Prompt length estimate (no tokenizer here; the server's usage is authoritative). */
  promptLen: number;
  /** `max_tokens` for this request. */
  outputLen: number;
  /** Top-level body keys this row adds; they win over --extra-body (as vLLM-Omni merges them). */
  rowBody?: Record<string, unknown>;
  /** Body keys set only when the body lacks them after the merge (Seed-TTS `modalities`). */
  bodyDefaults?: Record<string, unknown>;
  /** Keys the row adds that are expensive to hold for a whole run (ref audio), loaded at send time. */
  loadRowBody?: () => Promise<Record<string, unknown>>;
  /** Seconds from the benchmark start (trace datasets: the self-timed arrival). */
  timestamp?: number;
  /**
   * A prompt the body can take as bytes (random dataset): `messagesWith(text)` is `messages` with `text` as the
   * prompt, and `promptBytes()` that prompt's UTF-8 bytes, already valid JSON string content, in a buffer valid
   * until the next call (docs/design.md#request-body).
   */
  messagesWith?: (text: string) => unknown[];
  promptBytes?: () => Uint8Array;
  /** Seed-TTS rows: what the WER evaluation scores the answer against. */
  seedTts?: {
    utteranceId: string;
    locale: string;
    targetText: string;
    /** The row's prompt WAV: the input speech of a duplex realtime turn (docs/design.md#realtime). */
    wavPath?: string;
  };
}

export interface LoadedDataset {
  samples: SampleRequest[];
  /** One line each; printed by the CLI and emitted as run.warning events. */
  warnings: string[];
}

/**
 * A rough token count: words of letters/digits, each CJK character, and each
 * punctuation mark count as one. Only used where vLLM would run a tokenizer.
 */
export function estimateTokens(text: string): number {
  const m = text.match(/\p{Script=Han}|[\p{L}\p{N}]+|[^\s\p{L}\p{N}]/gu);
  return m ? m.length : 0;
}
