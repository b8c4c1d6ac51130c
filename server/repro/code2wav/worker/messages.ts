/**
 * Main ↔ Code2Wav worker messages: tagged unions, internal to server/target.
 * Errors cross the thread boundary as plain {name, message, stack}.
 */
import type { FaultKind, PhaseDetails } from '../../../../shared/types.ts';

export interface WorkerInit {
  workerId: number;
  modelName: string;
  seed: number;
  /** The watchdog's progress record for this worker (see watchdog/progress.ts). */
  progress: SharedArrayBuffer;
}

/** One window of one request: 3 context codes followed by up to 25 new ones. */
export interface DecodeItem {
  /** Internal request key (unique per HTTP request); the worker's cache key. */
  key: string;
  requestId: string;
  chunkSeq: number;
  cacheEpoch: number;
  lastChunk: boolean;
  contextCodes: number;
  codes: Int32Array;
}

/** The fault the plan chose for this op, executed inside `phase`. */
export interface FaultOrder {
  phase: string;
  kind: FaultKind;
  /** Extra delay for `slow`, in ms. */
  delayMs: number;
}

export interface DecodeSettings {
  steps: number;
  cfg: boolean;
  cfgRate: number;
  mode: 'eager' | 'whole_euler';
}

export type MainToWorker =
  | { type: 'decode'; opId: number; items: DecodeItem[]; settings: DecodeSettings; fault: FaultOrder | null }
  /** Drop per-request caches (request finished or its client went away). */
  | { type: 'release'; keys: string[] };

export interface DecodeOutput {
  key: string;
  /** WAV file bytes; null for a row cancelled during the op. */
  wav: Uint8Array | null;
  samples: number;
  /** Set when this row could not be decoded (e.g. its cache is missing); the rest of the batch is unaffected. */
  error?: string;
}

export interface SerializedError {
  name: string;
  message: string;
  stack?: string;
}

export type WorkerToMain =
  | { type: 'ready'; workerId: number }
  | { type: 'phase'; opId: number; phase: string; details: PhaseDetails; ts: number }
  | { type: 'done'; opId: number; outputs: DecodeOutput[]; durationMs: number }
  | { type: 'failed'; opId: number; error: SerializedError };
