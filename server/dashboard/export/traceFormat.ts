/**
 * The Chrome Trace Event format as the Perfetto export writes it: one event
 * type, the process ids of its three tracks, and the time conversions. A
 * trace is built by one pass over a run's events (chromeTrace.ts), each kind
 * of event written by its own emitter into a `TraceWriter`.
 */
import type { StopLike } from '../../../shared/requests/stopLabel.ts';

export interface TraceEvent {
  name: string;
  ph: 'X' | 'i' | 'C' | 'M';
  ts: number;
  pid: number;
  tid?: number;
  dur?: number;
  s?: 'g' | 'p' | 't';
  cat?: string;
  args?: Record<string, unknown>;
}

/** Process "requests": one track per request (tid = index + 1), the in-flight counter, breaker and timeout instants. */
export const REQ_PID = 1;
/** Process "code2wav": one track per worker (tid = worker + 1). */
export const C2W_PID = 2;
/** Process "server (py-spy)": the captures of the server's process tree. */
export const SERVER_PID = 3;

/** Run-clock ms to trace µs. */
export const us = (ms: number) => Math.round(ms * 1000);

/**
 * A slice from a to b: the endpoints are rounded once, and dur is derived from
 * them, so a child that ends with its parent ends at the same µs and adjacent
 * siblings touch without overlapping (rounding ts and dur separately could
 * push a child 1 µs past its parent).
 */
export const slice = (a: number, b: number) => ({ ts: us(a), dur: Math.max(0, us(b) - us(a)) });

export function meta(
  pid: number,
  tid: number | undefined,
  kind: 'process_name' | 'thread_name',
  name: string,
): TraceEvent {
  return { name: kind, ph: 'M', ts: 0, pid, ...(tid !== undefined ? { tid } : {}), args: { name } };
}

/** What the emitters share while one trace is built. */
export class TraceWriter {
  readonly out: TraceEvent[] = [
    meta(REQ_PID, undefined, 'process_name', 'requests'),
    meta(C2W_PID, undefined, 'process_name', 'code2wav'),
  ];
  /** Wall-clock ms of the run's t = 0 (from `run.started`), null before it. */
  startedAt: number | null = null;
  /** The latest run-clock ms seen: spans that never ended run to it. */
  lastT = 0;
  /**
   * The rule that stopped the run (its `run.stopped`), found before the pass: the requests it cancelled keep the key
   * `cancelled_after_timeout`, but their instants and slices are named by it (shared/requests/stopLabel.ts).
   */
  stop: StopLike = null;

  push(e: TraceEvent): void {
    this.out.push(e);
  }

  /** A wall-clock time (telemetry, py-spy) on the run clock; `fallback` (the event's own t) before `run.started`. */
  rel(wallMs: number, fallback: number): number {
    return this.startedAt !== null ? wallMs - this.startedAt : fallback;
  }

  /** Moves the end of the trace to `t` if later. */
  seen(t: number): void {
    this.lastT = Math.max(this.lastT, t);
  }
}
