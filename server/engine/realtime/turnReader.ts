/**
 * What a realtime turn reads from its session's events
 * (docs/design.md#realtime), as vLLM-Omni's EventCollector and
 * `timing_summary` read them: the handshake's `session.created` /
 * `session.updated`; then, for the turn's response (the first
 * `response.created` after the turn began), the first non-empty text or
 * transcript delta (TTFT), the first and last audio deltas (TTFP, the audio
 * generation time), the PCM bytes (duration = bytes / 2 / rate), and
 * `response.done` (E2EL; a status other than `completed` fails the turn).
 * An `error` event fails the turn with the server's message, verbatim (up
 * to records/keptText.ts's length). The first end wins: events after it, in
 * the same turn of the loop, change nothing.
 */
import type { RequestRecord } from '../records/record.ts';
import { markFailed } from '../records/record.ts';
import type { ErrorCode } from '../../../shared/errors.ts';
import { KEPT_TEXT_CHARS, KeptTextBuilder } from '../records/keptText.ts';
import {
  MAX_COMPLETION_TOKENS,
  type AttemptHooks,
  type ConnectionFailure,
  type RealtimeEvent,
} from '../transport/index.ts';
import type { RealtimeSession, TurnJob, TurnTiming } from './session.ts';
import { reportedTpotMs, stage0Snapshot, stage0Tokens } from './stageTokens.ts';
import { stage0TokenTimings, type Stage0Tokens } from '../../../shared/metrics/stageTiming.ts';

const TEXT_DELTAS = new Set([
  'response.output_audio_transcript.delta',
  'response.output_text.delta',
  'response.text.delta',
  'response.audio_transcript.delta',
]);
/** A realtime turn's record carries its receive times. */
export type RealtimeRecord = RequestRecord & { realtime?: TurnTiming };

const AUDIO_DELTAS = new Set(['response.output_audio.delta', 'response.audio.delta']);
/** The sample rates an audio delta may name: a rate outside them would make every duration 0, huge or Infinity. */
const MIN_RATE_HZ = 1_000;
const MAX_RATE_HZ = 768_000;

export class TurnReader {
  settle: (end: ConnectionFailure | 'done') => void = () => undefined;
  handshaking = false;
  finished = false;
  failure: ConnectionFailure | null = null;
  /** The turn's outcome is settled (done, or failed): later events are not read. */
  ended = false;
  readonly ready: Promise<void>;
  readonly timing: TurnTiming;
  private markReady!: () => void;
  private began = false;
  /**
   * The native flow reads the response's stage-0 engine metrics as upstream's newest client does (stageTokens.ts):
   * its output tokens (`num_tokens_out`) and its TPOT/ITL. The last snapshot of the response wins.
   */
  private native = false;
  private stage0: Record<string, unknown> | null = null;
  private rate = 24_000;
  /** The text deltas, kept up to KEPT_TEXT_CHARS (the rest counted): written to the record at the end. */
  private readonly text = new KeptTextBuilder(KEPT_TEXT_CHARS);

  constructor(
    private readonly record: RequestRecord,
    job: TurnJob,
    private readonly session: RealtimeSession,
    private readonly hooks: AttemptHooks,
    private readonly firstResponseEvent: () => void,
  ) {
    this.ready = new Promise((r) => (this.markReady = r));
    if (session.conn && !session.opening) this.markReady();
    this.timing = {
      sessionId: session.id,
      turn: job.turn,
      responseId: null,
      originTs: 0,
      firstTextTs: null,
      firstAudioTs: null,
      lastAudioTs: null,
      audioBytes: 0,
      doneTs: null,
      outputTokens: null,
      ...(job.input ? { trigger: job.input.trigger } : {}),
    };
    session.timings.set(job.index, this.timing);
    // The result keys read the timings from the records alone (backends get only records there).
    (record as RealtimeRecord).realtime = this.timing;
  }

  /**
   * The turn's input starts now: the origin of its timings until the duplex input moves it (input.ts). A native
   * turn keeps its request's start (before its own session's upgrade): upstream's E2EL spans the whole session
   * (native.ts), while TTFT/TTFP/RTF count from this origin, the first silent chunk.
   */
  begin(ts: number, native = false): void {
    this.began = true;
    this.native = native;
    // As vLLM-Omni: a turn is timed from its send; the session's upgrade and handshake are not in it.
    this.timing.originTs = ts;
    if (!native) this.record.startTime = ts;
  }

  /** Duplex: the end of the input speech is the origin of TTFT/TTFP/E2EL, as vLLM-Omni measures it. */
  moveOrigin(ts: number): void {
    this.timing.originTs = ts;
    this.record.startTime = ts;
  }

  onEvent(e: RealtimeEvent, ts: number): void {
    if (this.finished || this.ended) return;
    if (e.type === 'error') return this.fail('REQ_STREAM_ERROR', errorMessage(e));
    if (this.handshaking) {
      if (e.type === 'session.created' || e.type === 'session.updated') this.handshaken(e);
      return;
    }
    if (!this.began) return;
    const responseId = responseIdOf(e);
    if (e.type === 'response.created' && this.timing.responseId === null && responseId) {
      this.timing.responseId = responseId;
      this.firstResponseEvent();
    }
    if (responseId === null || responseId !== this.timing.responseId) return;
    // Any event of the response may carry stage 0 (upstream reads them all, response.created included).
    this.stage0 = stage0Snapshot(e) ?? this.stage0;
    if (TEXT_DELTAS.has(e.type)) this.onText(e, ts);
    else if (AUDIO_DELTAS.has(e.type)) this.onAudio(e, ts);
    else if (e.type === 'response.done') this.onDone(e, ts);
  }

  private handshaken(e: RealtimeEvent): void {
    const s = e.session as { id?: unknown; session_id?: unknown } | undefined;
    const id = s?.session_id ?? s?.id;
    if (typeof id === 'string' && id !== '') this.session.serverId = id;
    this.handshaking = false;
    this.session.opening = false;
    this.markReady();
  }

  private onText(e: RealtimeEvent, ts: number): void {
    const delta = typeof e.delta === 'string' ? e.delta : '';
    if (delta === '') return;
    const first = this.timing.firstTextTs === null;
    if (first) {
      this.timing.firstTextTs = ts;
      this.record.ttft = ts - this.timing.originTs;
      this.record.textLatency = this.record.ttft;
    }
    this.text.add(delta);
    this.hooks.onMessage?.({ ts, modality: 'text', newTokens: 1, firstToken: first, firstAudio: false });
  }

  private onAudio(e: RealtimeEvent, ts: number): void {
    const data = typeof e.delta === 'string' ? e.delta : typeof e.audio === 'string' ? e.audio : '';
    if (data === '') return;
    const rate = e.sample_rate_hz;
    if (
      rate !== undefined &&
      rate !== null &&
      !(typeof rate === 'number' && rate >= MIN_RATE_HZ && rate <= MAX_RATE_HZ)
    )
      return this.fail(
        'REQ_BAD_AUDIO',
        `sample_rate_hz ${JSON.stringify(rate)} is not a sample rate (${MIN_RATE_HZ} to ${MAX_RATE_HZ} Hz)`,
      );
    if (typeof rate === 'number') this.rate = rate;
    const first = this.timing.firstAudioTs === null;
    if (first) {
      this.timing.firstAudioTs = ts;
      this.record.audioTtfp = ts - this.timing.originTs;
    }
    this.timing.lastAudioTs = ts;
    this.timing.audioBytes += Buffer.byteLength(data, 'base64');
    this.record.hasAudio = true;
    this.record.audioFrames = Math.floor(this.timing.audioBytes / 2);
    this.record.audioDuration = this.record.audioFrames / this.rate;
    this.hooks.onMessage?.({ ts, modality: 'audio', newTokens: 0, firstToken: false, firstAudio: first });
  }

  private onDone(e: RealtimeEvent, ts: number): void {
    const response = (e.response ?? {}) as { status?: unknown; usage?: { output_tokens?: unknown } };
    this.timing.doneTs = ts;
    const rec = this.record;
    rec.latency = ts - rec.startTime;
    // Native: upstream's newest client sums stage 0's num_tokens_out (0 without one) and ignores usage; the older
    // turn flow (08-20's client) keeps the server's usage.output_tokens.
    const stage0 = this.native && this.stage0 ? stage0Tokens(this.stage0) : null;
    const tokens = this.native ? (stage0?.outputTokenCount ?? 0) : response.usage?.output_tokens;
    const source = this.native ? 'stage_metrics["0"].num_tokens_out' : 'response.done usage.output_tokens';
    // Held to chat's bound (docs/design.md#peer-bounds): a server's count is not a throughput of 1e17.
    if (typeof tokens === 'number' && tokens > MAX_COMPLETION_TOKENS)
      return this.fail('REQ_TOKEN_BOUND', `${source} = ${tokens} exceeds ${MAX_COMPLETION_TOKENS}`);
    if (typeof tokens === 'number' && Number.isInteger(tokens) && tokens >= 0) {
      rec.outputTokens = tokens;
      this.timing.outputTokens = tokens;
    }
    if (this.timing.lastAudioTs !== null && rec.audioDuration > 0)
      rec.audioRtf = (this.timing.lastAudioTs - this.timing.originTs) / rec.audioDuration;
    if (response.status !== 'completed')
      return this.fail('REQ_STREAM_ERROR', `the response ended with status ${JSON.stringify(response.status ?? null)}`);
    if (this.native) this.stageTiming(stage0);
    rec.success = true;
    rec.error = '';
    this.end();
  }

  /**
   * Native: TPOT/ITL from stage 0's engine timings, as upstream's `_apply_stage0_token_timings` (stageTiming.ts);
   * without a complete timing the turn has none (no ITLs, text latency = TTFT). The turn is one upstream request
   * (one utterance per session by default), so its own stage 0 is the request's only one.
   */
  private stageTiming(stage0: Stage0Tokens | null): void {
    const rec = this.record;
    const t = stage0TokenTimings(rec.ttft, [stage0], rec.outputTokens);
    rec.itl = t.itl;
    rec.textLatency = t.textLatency;
    if (this.stage0 === null) return;
    // `duplex_request_metrics` writes stage 0's reported TPOT (null when it has none) for a response with a stage 0.
    this.timing.stage0 = true;
    this.timing.tpotMs = reportedTpotMs(this.stage0);
  }

  /**
   * Fails the turn: a server's own message (REQ_STREAM_ERROR) verbatim, any other code's detail after its table
   * message (REQ_BUDGET from the turn's frame count, turn.ts).
   */
  fail(code: ErrorCode, detail: string): void {
    markFailed(this.record, code, detail, code === 'REQ_STREAM_ERROR');
    this.failure = { code, detail: this.record.error };
    this.end();
  }

  private end(): void {
    this.ended = true;
    this.settle('done');
  }

  /** The turn is over, however it ended (a timeout, the socket failing too): its kept text goes to the record. */
  writeText(): void {
    this.record.generatedText = this.text.toString();
  }

  /** Acknowledges the playback of the turn's whole audio, as vLLM-Omni's client does after each turn. */
  acknowledgePlayback(): void {
    const id = this.timing.responseId;
    if (!id || !this.session.conn) return;
    const playedMs = Math.trunc((this.timing.audioBytes / 2 / this.rate) * 1000);
    this.session.conn.send({
      type: 'playback.ack',
      played_ms: playedMs,
      committed_ms: playedMs,
      response_id: id,
      item_id: `item_${id}`,
    });
  }
}

export function responseIdOf(e: RealtimeEvent): string | null {
  if (typeof e.response_id === 'string') return e.response_id;
  const r = e.response as { id?: unknown } | undefined;
  return r && typeof r.id === 'string' ? r.id : null;
}

function errorMessage(e: RealtimeEvent): string {
  const err = e.error as { message?: unknown } | string | undefined;
  if (typeof err === 'string') return err;
  if (err && typeof err.message === 'string') return err.message;
  return JSON.stringify(e);
}
