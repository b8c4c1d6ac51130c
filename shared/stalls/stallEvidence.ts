/**
 * Stall evidence as the board reads it (docs/design.md#stall-fingerprints):
 * each stall report (watchdog, py-spy) and a run's first structural timeout
 * gets a fingerprint (shared/stalls/fingerprint.ts), stored with it, and a `ref`
 * that says where to see it in its run. Pure: the dashboard's store and the
 * browser's stall cards compute the same thing.
 */
import { Type, type Static } from 'typebox';
import { stallFingerprint, type StallFingerprint } from './fingerprint.ts';
import { stallKey, type StallReport } from './stallReport.ts';
import type { StallEvidence } from './stallBoard.ts';

export const FingerprintSchema = Type.Object({
  fingerprint: Type.String(),
  phase: Type.String(),
  frames: Type.Array(Type.String()),
  label: Type.String(),
});

/**
 * A run's first structural timeout: which request, what kind of limit, when
 * (ms on the run's clock), and the phase it was blocked in as the target's
 * telemetry placed it (`unknown` without telemetry). Its fingerprint is
 * phase-only: a client sees no stack.
 */
export const FirstTimeoutSchema = Type.Object({
  index: Type.Integer({ minimum: 0 }),
  requestId: Type.String(),
  kind: Type.String(),
  t: Type.Union([Type.Number(), Type.Null()]),
  phase: Type.String(),
  fingerprint: FingerprintSchema,
});
export type FirstTimeout = Static<typeof FirstTimeoutSchema>;

/** A stall report's fingerprint: its phase and the stack of the thread that holds the work. */
export function reportFingerprint(r: StallReport): StallFingerprint {
  return stallFingerprint(r.phase, r.stack);
}

/** Where a report is seen in its run (`w0-op3`, `capture-1`), from the key the store keeps it under (stallKey). */
export function keyRef(k: { workerId: number; opId: number }): string {
  return k.workerId === -1 ? `capture-${k.opId}` : `w${k.workerId}-op${k.opId}`;
}

export const reportRef = (r: StallReport): string => keyRef(stallKey(r));

/** Where a first timeout is seen: its request. */
export const timeoutRef = (index: number): string => `timeout-${index}`;

/**
 * The blocked phase named by where a request stood in Code2Wav (the hub's
 * `phaseOf`): its own op's phase, or the phase of the op it queued behind;
 * anything else (waiting for the stage, no telemetry) is `unknown`.
 */
export function blockedPhase(whereabouts: string | null | undefined): string {
  if (!whereabouts || whereabouts === 'waiting for Code2Wav') return 'unknown';
  const queued = /^queued behind op \d+(?: \((.+)\))?$/.exec(whereabouts);
  if (queued) return queued[1] ?? 'unknown';
  return whereabouts;
}

export function firstTimeout(
  index: number,
  requestId: string,
  kind: string,
  t: number | null,
  phase: string,
): FirstTimeout {
  return { index, requestId, kind, t, phase, fingerprint: stallFingerprint(phase, []) };
}

/** The board's evidence of a first timeout. */
export function timeoutEvidence(t: FirstTimeout): StallEvidence {
  return { kind: 'timeout', ref: timeoutRef(t.index), ...t.fingerprint };
}
