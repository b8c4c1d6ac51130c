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
  | 'not_dispatched';

/** End states only, in the order the dashboard lists them. */
export const REQUEST_END_STATUSES = [
  'completed',
  'failed',
  'timed_out',
  'cancelled_after_timeout',
  'not_dispatched',
] as const satisfies readonly RequestStatus[];
export type RequestEndStatus = (typeof REQUEST_END_STATUSES)[number];

/** Whether a value (from a file, the wire or the store) is a request end status. */
export const isRequestEndStatus = (v: unknown): v is RequestEndStatus =>
  (REQUEST_END_STATUSES as readonly unknown[]).includes(v);

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

export type { StackFrame, StallReport, WatchdogStallReport, ServerStacksReport } from './stallReport.ts';

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

/** Counts of request outcomes in a run. */
export interface RunCounts {
  total: number;
  completed: number;
  failed: number;
  timedOut: number;
  /** Every request the breaker cancelled, queued or in flight (the seed's meaning). */
  cancelledAfterTimeout: number;
  /** The never-sent subset of `cancelledAfterTimeout`. */
  notDispatched: number;
}
