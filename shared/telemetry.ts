/**
 * Target → dashboard telemetry: what a reproduction target (or a real
 * vLLM-Omni server, or any CI job) posts to the ingest endpoint as NDJSON,
 * one event per line. Discriminated on `type`, versioned by `v`.
 */
import type { PhaseDetails, WatchdogStallReport } from './types.ts';

export const TELEMETRY_VERSION = 1;

interface TelemetryBase {
  /** Protocol version of this event; currently 1. */
  v: typeof TELEMETRY_VERSION;
  /** Wall-clock milliseconds since the epoch at the source. */
  ts: number;
  /** Model served by the emitting stage. */
  model?: string;
}

/** A Code2Wav batch decode (one operation) began on a worker. */
export interface C2wOpBegin extends TelemetryBase {
  type: 'c2w.op.begin';
  workerId: number;
  opId: number;
  /** `x-request-id`s of the requests in the batch. */
  requestIds: string[];
  batchSize: number;
}

/** An operation entered a phase (or advanced a step inside one). */
export interface C2wPhase extends TelemetryBase {
  type: 'c2w.phase';
  workerId: number;
  opId: number;
  requestIds: string[];
  phase: string;
  details: PhaseDetails;
}

/** An operation finished. */
export interface C2wOpEnd extends TelemetryBase {
  type: 'c2w.op.end';
  workerId: number;
  opId: number;
  requestIds: string[];
  durationMs: number;
  ok: boolean;
  error?: string;
}

/** The watchdog saw no progress for its timeout: one per operation. */
export interface WatchdogStall extends TelemetryBase {
  type: 'watchdog.stall';
  report: WatchdogStallReport;
}

/** A reported operation later completed. */
export interface WatchdogRecovered extends TelemetryBase {
  type: 'watchdog.recovered';
  workerId: number;
  opId: number;
  requestIds: string[];
  /** Seconds from the last progress to completion. */
  stalledS: number;
}

/** A worker started or stopped executing an operation. */
export interface WorkerBusy extends TelemetryBase {
  type: 'worker.busy';
  workerId: number;
  opId: number;
}
export interface WorkerIdle extends TelemetryBase {
  type: 'worker.idle';
  workerId: number;
}

/** Stage-level progress for one request (thinker/talker/code2wav). */
export interface StageProgress extends TelemetryBase {
  type: 'stage.progress';
  requestId: string;
  stage: 'thinker' | 'talker' | 'code2wav';
  /** e.g. tokens emitted, codes emitted, windows decoded. */
  count: number;
  done?: boolean;
}

/** Telemetry sink dropped events (bounded queue overflow or unreachable sink). */
export interface TelemetryDropped extends TelemetryBase {
  type: 'telemetry.dropped';
  count: number;
}

export type TelemetryEvent =
  | C2wOpBegin
  | C2wPhase
  | C2wOpEnd
  | WatchdogStall
  | WatchdogRecovered
  | WorkerBusy
  | WorkerIdle
  | StageProgress
  | TelemetryDropped;

export type TelemetryType = TelemetryEvent['type'];
