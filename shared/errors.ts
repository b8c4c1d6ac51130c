/**
 * One table of errors with stable codes. Every user-facing error (API 400s,
 * CLI refusals, per-request errors) names one of these codes; messages add
 * the specifics. Codes never change once shipped; add new ones at the end of
 * their group.
 */
export const ERRORS = {
  // Configuration (refused before anything is sent).
  CONFIG_INVALID: { status: 400, exit: 2, message: 'invalid configuration' },
  CONFIG_FAIL_FAST_NO_TIMEOUT: { status: 400, exit: 2, message: 'fail-fast needs an effective timeout' },
  CONFIG_BACKEND_UNSUPPORTED: { status: 400, exit: 2, message: 'unsupported backend' },
  CONFIG_SELF_TIMED_NEEDS_TRACE: { status: 400, exit: 2, message: 'self-timed dispatch needs a trace dataset' },
  CONFIG_EXTRA_BODY: { status: 400, exit: 2, message: 'malformed --extra-body' },
  CONFIG_REALTIME: { status: 400, exit: 2, message: 'invalid realtime session settings' },
  CONFIG_DATASET_UNREADABLE: { status: 400, exit: 2, message: 'dataset cannot be read' },
  CONFIG_WATCHDOG_INVALID: { status: 400, exit: 2, message: 'invalid watchdog timeout' },
  CONFIG_FAULT_INVALID: { status: 400, exit: 2, message: 'invalid fault specification' },
  CONFIG_SERVER_PID: { status: 400, exit: 2, message: 'cannot capture the server stacks' },
  CONFIG_PHASE_RULES: { status: 400, exit: 2, message: 'invalid phase rules file' },
  CONFIG_DATASET_DOWNLOAD: { status: 400, exit: 2, message: 'the dataset could not be fetched from the Hub' },
  CONFIG_ASR_PYTHON: { status: 400, exit: 2, message: 'the transcription Python cannot run the recogniser' },
  CONFIG_STACKS_UNAVAILABLE: { status: 400, exit: 2, message: 'server stacks are required but cannot be taken' },
  // Per-request failures (one request fails, the run goes on).
  REQ_HTTP_STATUS: { status: 502, exit: 1, message: 'target answered with an HTTP error' },
  REQ_STREAM_ERROR: { status: 502, exit: 1, message: 'target reported an error in the stream' },
  REQ_BAD_JSON: { status: 502, exit: 1, message: 'invalid JSON in an SSE event' },
  REQ_BAD_SSE: { status: 502, exit: 1, message: 'malformed SSE stream' },
  REQ_BAD_AUDIO: { status: 502, exit: 1, message: 'undecodable audio chunk' },
  REQ_EVENT_TOO_LARGE: { status: 502, exit: 1, message: 'SSE event exceeds the size bound' },
  REQ_TOKEN_BOUND: { status: 502, exit: 1, message: 'token count beyond any sane bound' },
  REQ_NOT_EVENT_STREAM: { status: 502, exit: 1, message: 'response is not an event stream' },
  REQ_TRANSPORT: { status: 502, exit: 1, message: 'transport error' },
  REQ_TIMEOUT: { status: 504, exit: 3, message: 'request timed out' },
  REQ_CANCELLED: { status: 499, exit: 3, message: 'cancelled by the fail-fast breaker' },
  REQ_BUDGET: { status: 502, exit: 1, message: 'the server sent more than the request may accumulate' },
  // Realtime (WebSocket) turns (docs/design.md#realtime).
  REQ_WS_CLOSED: { status: 502, exit: 1, message: 'target closed the realtime WebSocket mid-turn' },
  REQ_WS_BINARY: { status: 502, exit: 1, message: 'binary frame where a JSON text event was expected' },
  REQ_WS_BAD_EVENT: { status: 502, exit: 1, message: 'realtime event is not a JSON object with a type' },
  REQ_WS_FRAME_TOO_LARGE: { status: 502, exit: 1, message: 'realtime frame exceeds the size bound' },
  REQ_WS_UPGRADE: { status: 502, exit: 1, message: 'target refused the WebSocket upgrade' },
  REQ_WS_SESSION_ENDED: { status: 502, exit: 1, message: 'an earlier turn of the session failed' },
  REQ_NOT_AUDIO_STREAM: { status: 502, exit: 1, message: 'response is not an audio stream' },
  // Server stack capture with py-spy: each is a run.warning and a note in the result; the run goes on.
  STACKS_PYSPY_MISSING: { status: 424, exit: 1, message: 'py-spy is not installed' },
  STACKS_PERMISSION: { status: 424, exit: 1, message: 'py-spy may not read the server process' },
  STACKS_PROCESS_GONE: { status: 424, exit: 1, message: 'the server process is gone' },
  STACKS_NOT_PYTHON: { status: 424, exit: 1, message: 'not a Python process' },
  STACKS_TIMEOUT: { status: 424, exit: 1, message: 'py-spy was killed at its time limit' },
  STACKS_FAILED: { status: 424, exit: 1, message: 'py-spy failed' },
  // Dashboard API.
  API_NOT_FOUND: { status: 404, exit: 1, message: 'not found' },
  API_CONFLICT: { status: 409, exit: 1, message: 'conflict' },
  API_FORBIDDEN_ORIGIN: { status: 403, exit: 1, message: 'foreign origin or host refused' },
  API_UNAUTHORIZED: { status: 401, exit: 1, message: 'missing or wrong token' },
  API_IMPORT_INVALID: { status: 400, exit: 1, message: 'the file is not a vLLM result' },
  API_BAD_REQUEST: { status: 400, exit: 1, message: 'bad request' },
  API_PAYLOAD_TOO_LARGE: { status: 413, exit: 1, message: 'request body too large' },
  API_MEMORY_BUDGET: { status: 400, exit: 2, message: 'the run would exceed the memory budget' },
  API_FORBIDDEN_SCOPE: { status: 403, exit: 1, message: "the token's scope does not allow this" },
  // Storage (the dashboard refuses to start rather than serve a store it cannot trust).
  STORE_CORRUPT: { status: 500, exit: 4, message: 'the database is corrupt' },
  STORE_LOCKED: { status: 409, exit: 4, message: 'the data directory is in use by another dashboard' },
  STORE_UNREADABLE: { status: 500, exit: 4, message: 'the database cannot be opened' },
  STORE_UNAVAILABLE: { status: 503, exit: 4, message: 'the database is unavailable' },
  STORE_URL_INVALID: { status: 400, exit: 2, message: 'invalid database URL' },
  // The SQLite reader thread (server/dashboard/store/sqlite/readerThread.ts): a full queue, a read past its deadline.
  STORE_BUSY: { status: 503, exit: 4, message: 'too many database reads are waiting' },
  STORE_READ_TIMEOUT: { status: 504, exit: 4, message: 'a database read took too long' },
  BOARD_CHANGED: { status: 503, exit: 4, message: 'runs changed while the stall board was read: retry' },
  INTERNAL: { status: 500, exit: 5, message: 'internal error' },
} as const;

export type ErrorCode = keyof typeof ERRORS;

/** An error with a stable code, an optional field path and a readable message. */
export class StallscopeError extends Error {
  readonly code: ErrorCode;
  readonly field?: string;
  constructor(code: ErrorCode, detail?: string, field?: string) {
    super(detail ? `${ERRORS[code].message}: ${detail}` : ERRORS[code].message);
    this.name = 'StallscopeError';
    this.code = code;
    this.field = field;
  }
  get status(): number {
    return ERRORS[this.code].status;
  }
  get exitCode(): number {
    return ERRORS[this.code].exit;
  }
  toJSON(): { code: ErrorCode; message: string; field?: string } {
    return { code: this.code, message: this.message, ...(this.field ? { field: this.field } : {}) };
  }
}
