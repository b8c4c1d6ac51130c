/**
 * A run as the stall board reads it (shared/stalls/stallBoard.ts): when, its
 * verdict, its metadata and its fingerprinted stall evidence; and the job
 * (CI pipeline and step) it belongs to. Pure.
 */

/** One piece of stall evidence of a run, already fingerprinted (shared/stalls/fingerprint.ts). */
export interface StallEvidence {
  kind: 'watchdog' | 'py-spy' | 'timeout';
  fingerprint: string;
  phase: string;
  frames: string[];
  label: string;
  /** Where to see it: the report's key in its run, e.g. `w0-op3`, `capture-1`, `timeout`. */
  ref: string;
}

export interface BoardRun {
  id: string;
  /** When the run happened (epoch ms): its start, or an imported file's own date. */
  atMs: number;
  verdict: string | null;
  status: string;
  label: string | null;
  metadata: Readonly<Record<string, string>>;
  evidence: readonly StallEvidence[];
}

/** A CI job: `ci_pipeline` and `ci_step`, each null when unset (both null: a run without CI metadata). */
export interface JobId {
  pipeline: string | null;
  step: string | null;
}

/** A metadata value, null when unset or empty. */
export const meta = (r: BoardRun, k: string): string | null => r.metadata[k] || null;

export const jobOf = (r: BoardRun): JobId => ({ pipeline: meta(r, 'ci_pipeline'), step: meta(r, 'ci_step') });

/** A job as a map key (NUL cannot be in a stored metadata value). */
export const jobKey = (j: JobId): string => `${j.pipeline ?? ''}\u0000${j.step ?? ''}`;
