/**
 * How a backend reads the body of a 200 answer into the request record
 * (docs/design.md#backends): the SSE stream parser for the chat backends,
 * the raw PCM reader for speech. The HTTP attempt (attempt.ts) and the
 * exchange (exchange.ts) feed it bytes as they arrive and know nothing else
 * of the format.
 */
import type { ErrorCode } from '../../../../shared/errors.ts';
import type { AudioSink } from './audioChunks.ts';
import type { ChunkShapes } from './chunkTemplate.ts';
import type { RequestRecord } from '../../records/record.ts';
import type { ParserHooks } from './streamParser.ts';

/** A 200's body reader: bytes in, the record filled; `failed` stops the exchange. */
export interface BodyReader {
  /** `readT`: when the bytes were read from the socket (the run's clock); `now()` at the push when absent. */
  push(chunk: Uint8Array, readT?: number): void;
  /**
   * The body ended cleanly: the record's end-of-stream fields are set (latency, audio totals, success). `endT`:
   * when the read that ended it was read; `now()` when absent (the server's close ended it).
   */
  end(endT?: number): void;
  /** True once the request is known to have failed; the exchange stops reading. */
  readonly failed: boolean;
}

export interface ReaderOptions {
  /** Monotonic seconds; injected so tests control time. */
  now: () => number;
  /** Bound on one event (SSE readers); default theirs. */
  maxEventBytes?: number;
  /** `onMessage` per unit the reader counts (an SSE event, a PCM read); it restarts the idle clock. */
  hooks?: ParserHooks;
  /** Receives the kept PCM when the run evaluates its audio (Seed-TTS gate). */
  audioSink?: AudioSink;
  /** The run's learnt chunk shapes, shared by its SSE streams (chunkTemplate.ts); a stream's own when absent. */
  shapes?: ChunkShapes;
}

export interface ResponseReading {
  open(record: RequestRecord, opts: ReaderOptions): BodyReader;
  /**
   * A 200 read to its end without a failure: why it is still no answer (`messages` = the units the
   * reader reported), or null when it is one.
   */
  notAnAnswer(contentType: string | null, messages: number): string | null;
  /** The error code of a body this backend cannot read (wrong content type, an encoding not asked for). */
  wrongBody: ErrorCode;
}
