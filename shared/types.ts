/**
 * Domain types shared by the engine, the target, the dashboard and the web UI.
 * Pure data: no Node or DOM globals, no local imports.
 */

/** Lifecycle of one benchmark request (docs/design.md section 4). */
export type RequestStatus =
  | 'pending'
  | 'queued'
  | 'sent'
  | 'streaming'
  | 'completed'
  | 'failed'
  | 'timed_out'
  | 'cancelled_after_timeout'
  | 'cancelled'
  | 'not_dispatched';

/**
 * End states only, in the order the dashboard lists them.
 * `cancelled_after_timeout`: cancelled by the fail-fast breaker; `cancelled`:
 * aborted in flight by an interrupt (signal, dashboard Cancel) before any
 * trip; `not_dispatched`: never sent. How they are counted: shared/outcomes.ts.
 */
export const REQUEST_END_STATUSES = [
  'completed',
  'failed',
  'timed_out',
  'cancelled_after_timeout',
  'cancelled',
  'not_dispatched',
] as const satisfies readonly RequestStatus[];
export type RequestEndStatus = (typeof REQUEST_END_STATUSES)[number];

/** Whether a value (from a file, the wire or the store) is a request end status. */
export const isRequestEndStatus = (v: unknown): v is RequestEndStatus =>
  (REQUEST_END_STATUSES as readonly unknown[]).includes(v);

/** What stopped a run early: the fail-fast breaker, or an interrupt (signal, dashboard Cancel). */
export type StopCause = 'breaker' | 'interrupt';

/** Who interrupted a run (result key `interrupt_cause`). */
export type InterruptCause = 'signal' | 'dashboard';

/** How the client opens connections (result key `connection_mode`). */
export type ConnectionMode = 'per_request' | 'keep_alive';

/** Structural timeout kinds; classification never looks at message text. */
export type TimeoutKind = 'total' | 'first_byte' | 'idle';

/** Verdict of a run (docs/design.md section 4). */
export type Verdict = 'passed' | 'failed' | 'failed_closed' | 'interrupted' | 'errored';

/** Status of a run as the dashboard tracks it. */
export type RunStatus = 'running' | 'finished' | 'interrupted' | 'errored';

/** Code2Wav phases, in order (docs/design.md section 5). */
export const C2W_PHASES = ['setup', 'encoder', 'cfm', 'cache_materialization', 'hift', 'output_copy'] as const;
export type C2wPhase = (typeof C2W_PHASES)[number];

/** Fault kinds of the reproduction target's fault plan. */
export type FaultKind = 'block' | 'spin' | 'slow';

/** One stack frame; `language` says which runtime produced it. */
export interface StackFrame {
  function: string;
  file: string;
  line: number;
  column: number;
  /** `js` (the embedded target), `python` (a vLLM-Omni server), or what another source reports. */
  language: string;
}

/** Bounded phase details: flat string/number/boolean values. */
export type PhaseDetails = Record<string, string | number | boolean | null>;

/** What tripped the fail-fast breaker. */
export interface BreakerCause {
  /** Dataset index of the request whose timeout fired first. */
  requestIndex: number;
  requestId: string;
  kind: TimeoutKind;
  /** Seconds from the request's start until the timeout fired. */
  elapsedS: number;
  /** Last server-side phase known for this request from telemetry, if any. */
  lastPhase?: string | null;
}

/**
 * Counts of request outcomes in a run, as the one rule of shared/outcomes.ts
 * folds them (docs/design.md section 4a). `failed` is everything that ended
 * without completing; within it `timedOut`, `cancelledAfterTimeout` (queued
 * and in-flight requests the breaker cancelled), `cancelled` (queued and
 * in-flight requests an interrupt cancelled) and `errored` (the rest) add up
 * to `failed`; `notDispatched` (never sent) is a subset of whichever of those
 * applied.
 */
export interface RunCounts {
  total: number;
  completed: number;
  failed: number;
  timedOut: number;
  cancelledAfterTimeout: number;
  cancelled: number;
  errored: number;
  notDispatched: number;
}

/** A watchdog stall report (one per Code2Wav operation). */
export interface StallReport {
  model: string;
  workerId: number;
  opId: number;
  requestIds: string[];
  phase: string;
  details: PhaseDetails;
  /** Seconds the op had been in `phase` when the report was made. */
  inPhaseS: number;
  /** Seconds since the op began. */
  inOpS: number;
  /** Wall-clock ms (epoch) when the stack was captured. */
  capturedAtMs: number;
  /** Wall-clock ms (epoch) of the deadline that expired. */
  deadlineMs: number;
  /** Top frame first. Empty with `stackError` set when capture failed. */
  stack: StackFrame[];
  stackError?: string;
}
