/**
 * Stall reports: the evidence of where a stalled server was stuck
 * (docs/design.md#watchdog and #server-stacks). Two sources, one family:
 * - `watchdog` — the target's no-progress watchdog, one report per Code2Wav
 *   operation with the owner thread's stack (posted as `watchdog.stall`
 *   telemetry; `source` is absent in reports from older targets);
 * - `py-spy` — stallscope read every thread's stack of the server's process
 *   tree from outside with `py-spy dump` (a `server.stacks` engine event),
 *   at the first timeout or after S seconds without an SSE event.
 * TypeBox schemas are the contract (the ingest route and the tests check
 * against them); the types come from `Static`.
 */
import { Type, type Static } from 'typebox';
import { Int4 } from '../storage/storable.ts';
import { FRAME_TEXT_MAX } from './frameText.ts';
import { GpuAtStallSchema, KernelLogAtStallSchema } from './gpuState.ts';

/** Frames a stack may hold: Python's default recursion limit, so a whole Python stack fits. */
export const MAX_STACK_FRAMES = 1000;

/** A frame's text is bounded (frameText.ts: producers cut to it, a longer one is refused) and its stack's depth too. */
export const StackFrameSchema = Type.Object({
  function: Type.String({ maxLength: FRAME_TEXT_MAX }),
  file: Type.String({ maxLength: FRAME_TEXT_MAX }),
  line: Type.Number(),
  column: Type.Number(),
  /** `js` (the embedded repro server), `python`, or `native` (py-spy --native). */
  language: Type.String(),
});
/** One stack frame; `language` says which runtime produced it. */
export type StackFrame = Static<typeof StackFrameSchema>;

const Details = Type.Record(Type.String(), Type.Union([Type.String(), Type.Number(), Type.Boolean(), Type.Null()]));
const Ids = Type.Array(Type.String({ maxLength: 512 }), { maxItems: 4096 });
const Frames = Type.Array(StackFrameSchema, { maxItems: MAX_STACK_FRAMES });

/** A watchdog stall report (one per Code2Wav operation). */
export const WatchdogStallReportSchema = Type.Object({
  source: Type.Optional(Type.Literal('watchdog')),
  model: Type.String(),
  /** Stored as INTEGER keys of the report's row, so bounded like them. */
  workerId: Int4(),
  opId: Int4(),
  requestIds: Ids,
  phase: Type.String(),
  details: Details,
  /** Seconds the op had been in `phase` when the report was made. */
  inPhaseS: Type.Number(),
  /** Seconds since the op began. */
  inOpS: Type.Number(),
  /** Wall-clock ms (epoch) when the stack was captured. */
  capturedAtMs: Type.Number(),
  /** Wall-clock ms (epoch) of the deadline that expired. */
  deadlineMs: Type.Number(),
  /** Top frame first. Empty with `stackError` set when capture failed. */
  stack: Frames,
  stackError: Type.Optional(Type.String()),
});
export type WatchdogStallReport = Static<typeof WatchdogStallReportSchema>;

/** One thread of a server process, as py-spy saw it. */
export const ServerThreadSchema = Type.Object({
  name: Type.String(),
  /** OS thread id (what `top -H` and gdb show). */
  tid: Type.Integer(),
  /** Running (not waiting) when sampled. */
  active: Type.Boolean(),
  ownsGil: Type.Boolean(),
  /** Top frame first. */
  frames: Frames,
  /** Frames left out beyond the bound (deep recursion). */
  framesDropped: Type.Optional(Type.Integer()),
  /** The Code2Wav phase a rule matched in this thread's frames, if any. */
  phase: Type.Optional(Type.String()),
});
export type ServerThread = Static<typeof ServerThreadSchema>;

/** One process of the server's tree: its threads, or why they could not be read. */
export const ServerProcessSchema = Type.Object({
  pid: Type.Integer(),
  /** Parent pid; null for the root. */
  ppid: Type.Union([Type.Integer(), Type.Null()]),
  cmdline: Type.String(),
  threads: Type.Array(ServerThreadSchema, { maxItems: 4096 }),
  /** Set when py-spy could not read this process (code from shared/errors.ts). */
  error: Type.Optional(Type.Object({ code: Type.String(), message: Type.String() })),
});
export type ServerProcess = Static<typeof ServerProcessSchema>;

/** Why a capture was taken. */
export const CaptureReasonSchema = Type.Union([
  Type.Object({
    kind: Type.Literal('first_timeout'),
    requestIndex: Type.Integer(),
    requestId: Type.String(),
    timeoutKind: Type.String(),
    elapsedS: Type.Number(),
  }),
  Type.Object({
    kind: Type.Literal('no_progress'),
    /** The `--server-stall-after-s` threshold. */
    afterS: Type.Number(),
    /** Longest silence among the stalled requests, in seconds. */
    silentS: Type.Number(),
  }),
]);
export type CaptureReason = Static<typeof CaptureReasonSchema>;

/** The frame a phase was inferred from, and where it was. */
export const PhaseInferenceSchema = Type.Object({
  phase: Type.String(),
  /** Id of the rule that matched (phase-rules file). */
  rule: Type.String(),
  pid: Type.Integer(),
  tid: Type.Integer(),
  threadName: Type.String(),
  frame: StackFrameSchema,
  /** Position of the frame in its thread's stack (0 = top). */
  frameIndex: Type.Integer(),
});
export type PhaseInference = Static<typeof PhaseInferenceSchema>;

/** A capture of the server's process tree with py-spy. */
export const ServerStacksReportSchema = Type.Object({
  source: Type.Literal('py-spy'),
  /** 1-based number of this capture in its run. */
  capture: Int4(1),
  reason: CaptureReasonSchema,
  /** The server process the tree was walked from. */
  rootPid: Type.Integer(),
  native: Type.Boolean(),
  capturedAtMs: Type.Number(),
  /** How long the capture of the whole tree took. */
  durationMs: Type.Number(),
  /** Inferred Code2Wav phase, or `unknown` when no rule matched. */
  phase: Type.String(),
  inferred: Type.Union([PhaseInferenceSchema, Type.Null()]),
  /** Requests in flight (or stalled, for no_progress) when the capture was taken. */
  requestIds: Ids,
  processes: Type.Array(ServerProcessSchema, { maxItems: 1024 }),
  /** The stack of the likely-blocked thread (the inferred one, else the first likely one), top first. */
  stack: Frames,
  /** Set when no process of the tree could be read. */
  stackError: Type.Optional(Type.String()),
  /** What went wrong in this capture, one line each (also sent as run.warning). */
  notes: Type.Array(Type.String()),
  /** The first capture only: the GPU's state at the stall (docs/design.md#below-python). */
  gpuAtStall: Type.Optional(GpuAtStallSchema),
  /** The first capture only: the kernel log's GPU hang and reset lines since the run started. */
  kernelLogAtStall: Type.Optional(KernelLogAtStallSchema),
});
export type ServerStacksReport = Static<typeof ServerStacksReportSchema>;

export const StallReportSchema = Type.Union([WatchdogStallReportSchema, ServerStacksReportSchema]);
/** A stall report of either source; narrow with `isServerStacks`. */
export type StallReport = WatchdogStallReport | ServerStacksReport;

export function isServerStacks(r: StallReport): r is ServerStacksReport {
  return r.source === 'py-spy';
}

/**
 * Whether a report is evidence of a stall. A watchdog report always is: the
 * target itself saw no progress in a known phase, even when it could not
 * read the stack. A py-spy capture is only when it read at least one thread:
 * one that read nothing (py-spy missing, no ptrace rights, not a Python
 * process) says something about the capture, not about the server, so it is
 * a warning and never counts as a stall.
 */
export function isStallEvidence(r: StallReport): boolean {
  if (!isServerStacks(r)) return true;
  return r.stackError === undefined && r.processes.some((p) => p.threads.length > 0);
}

/**
 * The key a stall report is stored under (one row per key): watchdog reports
 * by worker and op, py-spy captures on worker -1 by capture number.
 */
export function stallKey(r: StallReport): { workerId: number; opId: number } {
  return isServerStacks(r) ? { workerId: -1, opId: r.capture } : { workerId: r.workerId, opId: r.opId };
}

/**
 * Whether a base URL's host is this machine's loopback (`--server-pid auto`
 * finds the server by its listening port, which only means something here).
 */
export function isLoopbackUrl(baseUrl: string): boolean {
  // No URL global in shared/: the authority's host by hand (userinfo dropped, IPv6 brackets kept apart).
  const m = /^[a-z][a-z0-9+.-]*:\/\/(?:[^@/?#]*@)?(\[[^\]]*\]|[^:/?#]*)/i.exec(baseUrl.trim());
  if (!m) return false;
  const host = m[1].replace(/^\[|\]$/g, '').toLowerCase();
  return (
    host === 'localhost' ||
    host === '::1' ||
    /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host) ||
    /^::ffff:127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host) ||
    /^::ffff:7f[0-9a-f]{2}:[0-9a-f]{1,4}$/.test(host)
  );
}
