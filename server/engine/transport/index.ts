/**
 * The engine's network seam (docs/design.md#connections): everything in the
 * engine that opens, holds, writes or reads a benchmark connection is under
 * `transport/`, and the rest of the engine reaches it through this file (or,
 * off the hot path, through `simpleClient.ts`). Only `transport/` imports
 * `node:net`, `node:tls`, `node:http(s)`, `undici` or `ws`
 * (`.dependency-cruiser.cjs`, `transport-owns-the-network`).
 *
 * Behind it, the hot-path clients and the client performance code:
 * - `http/` — one attempt of one request (`sendAttempt`), the run's
 *   connections (`RunConnections`: per request, keep-alive, TLS), the
 *   attempt's timers, cancellation and failure classes;
 * - `h1/` — the hand-written HTTP/1.1 client on plain `net`/`tls` sockets;
 * - `ws/` — the realtime backends' WebSocket connections;
 * - `reading/` — reading a stream: SSE framing, the stream parser, the JSON
 *   chunk template matcher, PCM and WAV;
 * - `loopback/` — the loopback server the client warm-up runs against.
 * These are tuned against measurements (docs/performance.md): a change there
 * is measured with `npm run bench engine` before it is kept.
 *
 * Re-exports only: nothing here runs per request, so the seam costs the hot
 * path nothing.
 */

// One request's attempt on the run's connections.
export { sendAttempt, overBudget } from './http/attempt.ts';
export type { AttemptFn, AttemptHooks, AttemptResult, AttemptTarget } from './http/attempt.ts';
export { RunConnections, CLEANUP_DEADLINE_MS } from './http/dispatcher.ts';
export { tlsOptions } from './http/tls.ts';
export { AttemptSignal } from './http/attemptSignal.ts';
export { AttemptTimers } from './http/timeouts.ts';
export { Cancellation } from './http/cancellation.ts';
export { cancelAll, type Sweeper } from './http/cancelSweep.ts';
export { CancelledError, type TimeoutError } from './http/reasons.ts';
export { classifyFailure, type FailureClass } from './http/classify.ts';

// The realtime backends' WebSocket connections.
export {
  RealtimeConnection,
  DEFAULT_MAX_FRAME_BYTES,
  type ConnectionFailure,
  type RealtimeEvent,
} from './ws/connection.ts';
export { RealtimeSockets, bothSweepers } from './ws/sockets.ts';

// Reading a stream (client performance code).
export type { ResponseReading } from './reading/responseReading.ts';
export { CHAT_OMNI_SSE_READING, SSE_READING } from './reading/sseReading.ts';
export { PcmReader, type PcmFormat } from './reading/pcmReader.ts';
export { ChunkShapes } from './reading/chunkTemplate.ts';
export type { MessageInfo } from './reading/streamParser.ts';
export { MAX_COMPLETION_TOKENS } from './reading/streamParser.ts';
export type { AudioSink } from './reading/audioChunks.ts';
export { WavError, parseWav } from './reading/wav.ts';

// The loopback server of the client warm-up.
export { loopbackServer, type LoopbackServer } from './loopback/loopbackServer.ts';
