/**
 * Turns the body of one `openai-chat-omni` streaming response into a
 * RequestRecord, with the same numbers vLLM-Omni's client produces for the
 * same bytes and read boundaries (docs/design.md#stream and #per-request-metrics, golden fixtures).
 *
 * Timing: every complete message is timestamped with the time of the read
 * that completed it (after reassembly across reads): the time the read was
 * taken from the socket when the caller says it (docs/design.md#read-time),
 * else `now()` at the push. `[DONE]` and comments take no timestamp.
 *
 * Failure policy (a misbehaving target fails one request, never the run):
 * - fatal, `failed` becomes true at once and the caller stops reading: bytes
 *   that are not UTF-8 or not SSE (REQ_BAD_SSE), invalid JSON or a non-object
 *   event (REQ_BAD_JSON), an event over `maxEventBytes` (REQ_EVENT_TOO_LARGE),
 *   undecodable audio (REQ_BAD_AUDIO);
 * - an in-stream `{"error": ...}` (REQ_STREAM_ERROR, current upstream
 *   behaviour): parsing goes on so its timestamp still counts for latency;
 *   the request fails at `end()` with error = the error's message.
 * Tolerated with one warning each: `data:` without a space (vLLM's client
 * would fail the request; the SSE spec allows it), WAV chunks whose format
 * differs from the first (dropped, as upstream does), a clean EOF inside an
 * unterminated event (ignored, as upstream does).
 */
import type { RequestRecord } from '../../records/record.ts';
import { markFailed } from '../../records/record.ts';
import { ChunkTemplate, type ChunkShapes } from './chunkTemplate.ts';
import { FramingError, SseFramer, parseSseMessage } from './sseFraming.ts';
import {
  coercePositiveInt,
  isObject,
  outputTokensFromMetrics,
  sequentialSum,
  streamErrorMessage,
  type Json,
} from './payload.ts';
import { WavError } from './wav.ts';
import {
  compactStageSnapshot,
  mergeStageMetrics,
  type StageSnapshotBuilder,
} from '../../../../shared/vllmResult/requestStageMetrics.ts';
import { chatStage0Timing, hasPositiveItl } from './chatStage0.ts';
import { AudioChunks, type AudioSink } from './audioChunks.ts';
import { KEPT_ERROR_CHARS, KEPT_TEXT_CHARS, KeptTextBuilder, keptText } from '../../records/keptText.ts';

/** What one message added; the parser's own object, refilled per message: read it during the hook, do not keep it. */
export interface MessageInfo {
  ts: number;
  modality: 'text' | 'audio' | null;
  newTokens: number;
  firstToken: boolean;
  firstAudio: boolean;
}

export interface ParserHooks {
  onMessage?(info: MessageInfo): void;
  onWarning?(msg: string): void;
}

export interface StreamParserOptions {
  /** Monotonic seconds (like `performance.now() / 1000`); injected so tests control time. */
  now: () => number;
  /** Bound on one SSE event; default 16 MiB. */
  maxEventBytes?: number;
  hooks?: ParserHooks;
  /** Receives the kept PCM when the run evaluates its audio (Seed-TTS gate); none otherwise. */
  audioSink?: AudioSink;
  /** The run's learnt chunk shapes, shared by its streams; the stream learns its own when absent. */
  shapes?: ChunkShapes;
  /**
   * openai-chat-omni: keep the request's stage fields for `request_stage_metrics`, and with no positive client ITL
   * take TPOT/ITL from stage 0's engine metrics (chatStage0.ts); vLLM's plain openai-chat client reads no metrics.
   */
  omniStageMetrics?: boolean;
}

export const DEFAULT_MAX_EVENT_BYTES = 16 * 1024 * 1024;

/**
 * Completion tokens one request may report, far above any `max_tokens`: each
 * token costs an ITL entry, so a hostile `completion_tokens` of 1e9 would
 * otherwise push a billion zeros (V8 dies; 1e7 already costs 1 GB).
 */
export const MAX_COMPLETION_TOKENS = 1_000_000;

export class StreamParser {
  private readonly framer: SseFramer;
  private readonly st: number;
  private lastTs: number;
  /** The time of the read being parsed: every message it completes takes it. */
  private readT = 0;
  private lastTokenTs: number;
  private tokensSeen = 0;
  private firstTokenSeen = false;
  /**
   * The text pieces, joined once at the end (`+=` per token would keep a tree of them in every record), up to
   * KEPT_TEXT_CHARS: past it they are counted, not kept (records/keptText.ts).
   */
  private readonly text = new KeptTextBuilder(KEPT_TEXT_CHARS);
  private readonly audio: AudioChunks;
  private readonly template: ChunkTemplate;
  /** Refilled for every message (MessageInfo): an object per message was a tenth of a stream's garbage. */
  private readonly info: MessageInfo = { ts: 0, modality: null, newTokens: 0, firstToken: false, firstAudio: false };
  private audioGenerateTime = 0;
  /** The last `metrics.stage_metrics["0"]` of the stream (upstream's dict.update keeps the latest); undefined: none. */
  private stage0: unknown = undefined;
  /** The stage fields kept so far (requestStageMetrics.ts); undefined: no `stage_metrics` map yet. */
  private stages: StageSnapshotBuilder | undefined;
  private warnedStages = false;
  private streamError: string | null = null;
  private warnedNoSpace = false;
  private ended = false;
  private fatal = false;

  constructor(
    private readonly record: RequestRecord,
    private readonly opts: StreamParserOptions,
  ) {
    this.framer = new SseFramer(opts.maxEventBytes ?? DEFAULT_MAX_EVENT_BYTES);
    this.audio = new AudioChunks(opts.audioSink);
    this.template = new ChunkTemplate(opts.shapes);
    this.st = record.startTime;
    this.lastTs = this.st;
    this.lastTokenTs = this.st;
  }

  /** True once the request is known to have failed (fatally while reading, or by an in-stream error at `end()`). */
  get failed(): boolean {
    return this.fatal || (this.ended && this.streamError !== null);
  }

  push(chunk: Uint8Array, readT?: number): void {
    if (this.fatal || this.ended || chunk.length === 0) return;
    this.readT = readT ?? this.opts.now();
    this.guard(() => {
      for (const message of this.framer.push(chunk)) {
        this.handleMessage(message);
        if (this.fatal) return;
      }
    });
  }

  end(): void {
    if (this.fatal || this.ended) return;
    this.ended = true;
    this.guard(() => this.finish());
  }

  /** Nothing may escape push()/end(): an unexpected throw fails the request with its message. */
  private guard(work: () => void): void {
    try {
      work();
    } catch (err) {
      this.fatal = true;
      if (err instanceof FramingError) markFailed(this.record, err.code, err.message);
      else if (err instanceof WavError) markFailed(this.record, 'REQ_BAD_AUDIO', err.message);
      else if (err instanceof SyntaxError) markFailed(this.record, 'REQ_BAD_JSON', err.message);
      else markFailed(this.record, 'INTERNAL', `stream parser: ${err instanceof Error ? err.message : String(err)}`);
    }
  }

  private warn(message: string): void {
    this.record.warnings.push(message);
    this.opts.hooks?.onWarning?.(message);
  }

  private handleMessage(message: string): void {
    // Every vLLM event is one `data: …` line: take it without the general field split (and its object).
    if (message.startsWith('data: ') && !message.includes('\n')) return this.handleData(message.slice(6));
    const { data, dataWithoutSpace } = parseSseMessage(message);
    if (data === null) return;
    if (dataWithoutSpace && !this.warnedNoSpace) {
      this.warnedNoSpace = true;
      this.warn("SSE 'data:' field without a space after the colon: accepted (vLLM's client would fail this request)");
    }
    this.handleData(data);
  }

  private handleData(data: string): void {
    if (data === '[DONE]') return;
    const ts = this.readT;
    this.lastTs = ts;
    const info = this.info;
    info.ts = ts;
    info.modality = null;
    info.newTokens = 0;
    info.firstToken = false;
    info.firstAudio = false;
    // A chunk shaped as one learnt before is read from its values alone (chunkTemplate.ts); any other is parsed.
    const t = this.template;
    if (t.match(data)) {
      const completionTokens = this.applyUsage(t.prompt, t.completion);
      if (completionTokens !== false) this.handleText(undefined, t.content, completionTokens, ts, info);
    } else {
      let event: unknown;
      try {
        event = JSON.parse(data);
      } catch (err) {
        const shown = data.length > 60 ? `${data.slice(0, 60)}…` : data;
        throw new SyntaxError(`${(err as Error).message}; the event was ${JSON.stringify(shown)}`, { cause: err });
      }
      if (!isObject(event))
        throw new SyntaxError(`the event is not a JSON object: ${JSON.stringify(data.slice(0, 60))}`);
      t.learn(data, event);
      this.handleEvent(event, ts, info);
    }
    this.opts.hooks?.onMessage?.(info);
  }

  private handleEvent(event: Json, ts: number, info: MessageInfo): void {
    const rec = this.record;
    if (event.error !== undefined && event.error !== null) {
      // Current upstream: remember the error, keep reading; the event's time still counts.
      this.streamError = keptText(streamErrorMessage(event.error), KEPT_ERROR_CHARS);
      rec.error = this.streamError;
      rec.errorCode = 'REQ_STREAM_ERROR';
      return;
    }
    if (isObject(event.metrics)) this.applyMetrics(event.metrics);
    let completionTokens: number | null = null;
    if (isObject(event.usage)) {
      const c = this.applyUsage(event.usage.prompt_tokens, event.usage.completion_tokens);
      if (c === false) return;
      completionTokens = c;
    }
    const choices = event.choices;
    if (!Array.isArray(choices) || choices.length === 0) return;
    const choice = isObject(choices[0]) ? choices[0] : {};
    const delta = isObject(choice.delta) ? choice.delta : {};
    let content: unknown = delta.content;
    if (!content && isObject(delta.audio)) content = delta.audio.data;
    if (event.modality === 'text') this.handleText(choice.token_ids, content, completionTokens, ts, info);
    else if (event.modality === 'audio') {
      info.modality = 'audio';
      this.handleAudio(content, ts, info);
    }
  }

  /**
   * A chunk's usage (a text chunk's, the usage-only last one's): the
   * prompt's and the completion's token counts, the latter held to the
   * bound first; false when that failed the request.
   */
  private applyUsage(promptRaw: unknown, completionRaw: unknown): number | null | false {
    const rec = this.record;
    const promptTokens = coercePositiveInt(promptRaw);
    if (promptTokens !== null) rec.promptLen = promptTokens;
    const completionTokens = coercePositiveInt(completionRaw);
    // Checked here, before the choices: vLLM's last chunk is `"choices": []` with the usage alone.
    if (!this.withinTokenBound(completionTokens, 'usage.completion_tokens')) return false;
    if (completionTokens !== null) rec.outputTokens = Math.max(rec.outputTokens, completionTokens);
    return completionTokens;
  }

  /** A text chunk: from its parsed event, or from a matched template's values (which have no token ids). */
  private handleText(
    tokenIds: unknown,
    content: unknown,
    completionTokens: number | null,
    ts: number,
    info: MessageInfo,
  ): void {
    info.modality = 'text';
    let k = 0;
    if (completionTokens !== null && completionTokens > this.tokensSeen) {
      k = completionTokens - this.tokensSeen;
      this.tokensSeen = completionTokens;
    }
    if (k === 0 && Array.isArray(tokenIds) && tokenIds.length > 0) {
      k = tokenIds.length;
      if (completionTokens !== null) this.tokensSeen = Math.max(this.tokensSeen, completionTokens);
    }
    const text = typeof content === 'string' ? content : '';
    if (k === 0 && text !== '' && completionTokens === null) k = 1;
    if (k > 0) this.recordTokens(k, ts, info);
    if (text !== '') this.text.add(text);
  }

  /** The k-token ITL rule (docs/design.md#per-request-metrics). */
  private recordTokens(k: number, ts: number, info: MessageInfo): void {
    const rec = this.record;
    info.newTokens = k;
    if (!this.firstTokenSeen) {
      this.firstTokenSeen = true;
      info.firstToken = true;
      rec.ttft = ts - this.st;
      rec.textLatency = ts - this.st;
      for (let i = 1; i < k; i++) rec.itl.push(0);
    } else {
      const perToken = Math.max(ts - this.lastTokenTs, 0) / k;
      for (let i = 0; i < k; i++) rec.itl.push(perToken);
      rec.textLatency = ts - this.st;
    }
    this.lastTokenTs = ts;
  }

  private handleAudio(content: unknown, ts: number, info: MessageInfo): void {
    const rec = this.record;
    if (!rec.hasAudio) {
      rec.hasAudio = true;
      info.firstAudio = true;
      rec.audioTtfp = ts - this.st;
    }
    // Every audio event's time counts for audio_rtf, also a chunk dropped below for its format.
    this.audioGenerateTime = ts - this.st;
    if (content) this.audio.add(content);
  }

  private applyMetrics(metrics: Json): void {
    const rec = this.record;
    const tokens = outputTokensFromMetrics(metrics);
    if (!this.withinTokenBound(tokens, 'metrics output tokens')) return;
    if (tokens !== null) rec.outputTokens = Math.max(rec.outputTokens, tokens);
    if (!isObject(metrics.stage_metrics)) return;
    if ('0' in metrics.stage_metrics) this.stage0 = metrics.stage_metrics['0'];
    if (!this.opts.omniStageMetrics) return;
    this.stages ??= new Map();
    const refused = mergeStageMetrics(this.stages, metrics.stage_metrics);
    if (refused && !this.warnedStages) {
      this.warnedStages = true;
      this.warn(refused);
    }
    // Kept on the record at once: a request that times out keeps what it saw, as upstream's output does.
    rec.stageSnapshot = compactStageSnapshot(this.stages);
  }

  /**
   * A token count the server reports, wherever it reports it (a text chunk's
   * usage, the usage-only last chunk, stage metrics), is held to
   * MAX_COMPLETION_TOKENS before it is used: past it the request fails with
   * REQ_TOKEN_BOUND and the stream is not read further.
   */
  private withinTokenBound(tokens: number | null, what: string): boolean {
    if (tokens === null || tokens <= MAX_COMPLETION_TOKENS) return true;
    this.fatal = true;
    markFailed(this.record, 'REQ_TOKEN_BOUND', `${what} = ${tokens} exceeds ${MAX_COMPLETION_TOKENS}`);
    return false;
  }

  /**
   * Upstream's chat fallback (`_apply_chat_stage0_token_timings`): more than one output token and no positive
   * interval among the client's ITLs (every token came in one read) — stage 0's exact ITLs or its TPOT replace
   * them, when its token count is the request's.
   */
  private applyStage0Timings(): void {
    const rec = this.record;
    if (!this.opts.omniStageMetrics || this.stage0 === undefined || rec.outputTokens <= 1 || hasPositiveItl(rec.itl))
      return;
    const t = chatStage0Timing(this.stage0, rec.ttft, rec.outputTokens);
    if (t === null) return;
    rec.itl.length = 0;
    for (const v of t.itl) rec.itl.push(v);
    rec.textLatency = t.textLatency;
  }

  private finish(): void {
    const rec = this.record;
    if (this.framer.pending)
      this.warn(`the stream ended inside an unterminated SSE event (${this.framer.pending.length} characters ignored)`);
    const dropWarning = this.audio.dropWarning();
    if (dropWarning) this.warn(dropWarning);
    rec.latency = this.lastTs - this.st;
    rec.generatedText = this.text.toString();
    this.applyStage0Timings();
    if (rec.itl.length > 0) rec.textLatency = rec.ttft + sequentialSum(rec.itl);
    const { frames, durationS } = this.audio.totals();
    if (frames > 0) {
      rec.audioFrames = frames;
      rec.audioDuration = durationS;
      rec.audioRtf = this.audioGenerateTime / durationS;
    }
    this.opts.audioSink?.end();
    if (this.streamError !== null) {
      rec.success = false;
      rec.error = this.streamError;
      rec.errorCode = 'REQ_STREAM_ERROR';
    } else {
      rec.success = true;
      rec.error = '';
      rec.errorCode = null;
    }
  }
}
