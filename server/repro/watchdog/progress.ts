/**
 * The progress record a Code2Wav worker publishes for the watchdog, in a
 * SharedArrayBuffer. The worker writes it with Atomics inside a seqlock; the
 * monitor in the main thread reads it directly, so what it sees is the
 * worker's state now — never a message still waiting in a queue behind a
 * hung thread. Details are replaced (not merged) at every phase update.
 *
 * Layout: Int32 slots (state, op id, phase index, progress counter, seqlock,
 * details length, batch size), then cancel flags for up to MAX_ROWS batch
 * rows, then Float64 timestamps, then the details JSON bytes.
 */
import type { PhaseDetails } from '../../../shared/types.ts';
import { C2W_PHASES } from '../../../shared/types.ts';
import { boundDetails, MAX_DETAIL_BYTES } from './details.ts';

const STATE = 0,
  OP = 1,
  PHASE = 2,
  COUNTER = 3,
  SEQ = 4,
  DLEN = 5,
  BATCH = 6;
const CANCEL = 8;
export const MAX_ROWS = 64;
const INT_SLOTS = CANCEL + MAX_ROWS;
const F64_OFFSET = INT_SLOTS * 4; // multiple of 8
const T_OP = 0,
  T_PHASE = 1,
  T_PROGRESS = 2;
const DETAILS_OFFSET = F64_OFFSET + 3 * 8;
export const PROGRESS_BYTES = DETAILS_OFFSET + MAX_DETAIL_BYTES * 4;

export function createProgressBuffer(): SharedArrayBuffer {
  return new SharedArrayBuffer(PROGRESS_BYTES);
}

/** A consistent copy of a worker's progress record. */
export interface ProgressSnapshot {
  busy: boolean;
  opId: number;
  phaseIndex: number;
  phase: string | null;
  counter: number;
  batchSize: number;
  opStartMs: number;
  phaseStartMs: number;
  lastProgressMs: number;
  details: PhaseDetails;
}

class ProgressView {
  protected readonly i32: Int32Array;
  protected readonly f64: Float64Array;
  protected readonly bytes: Uint8Array;
  constructor(sab: SharedArrayBuffer) {
    this.i32 = new Int32Array(sab, 0, INT_SLOTS);
    this.f64 = new Float64Array(sab, F64_OFFSET, 3);
    this.bytes = new Uint8Array(sab, DETAILS_OFFSET, MAX_DETAIL_BYTES * 4);
  }
}

/** Worker side. Each call costs a few atomic stores plus a small JSON encode. */
export class ProgressWriter extends ProgressView {
  private readonly enc = new TextEncoder();

  begin(opId: number, batchSize: number, now = Date.now()): void {
    this.write(() => {
      Atomics.store(this.i32, STATE, 1);
      Atomics.store(this.i32, OP, opId);
      Atomics.store(this.i32, PHASE, -1);
      Atomics.store(this.i32, BATCH, batchSize);
      Atomics.store(this.i32, DLEN, 0);
      this.f64[T_OP] = now;
      this.f64[T_PHASE] = now;
      this.f64[T_PROGRESS] = now;
    });
  }

  /** Enters `phase` (or advances within it) and replaces the details. */
  phase(phase: string, details: Record<string, unknown>, now = Date.now()): PhaseDetails {
    const bounded = boundDetails(details);
    const json = this.enc.encode(JSON.stringify(bounded));
    const index = C2W_PHASES.indexOf(phase as (typeof C2W_PHASES)[number]);
    this.write(() => {
      const prev = Atomics.load(this.i32, PHASE);
      if (prev !== index) this.f64[T_PHASE] = now;
      Atomics.store(this.i32, PHASE, index);
      this.bytes.set(json.subarray(0, this.bytes.length));
      Atomics.store(this.i32, DLEN, Math.min(json.length, this.bytes.length));
      this.f64[T_PROGRESS] = now;
    });
    return bounded;
  }

  end(now = Date.now()): void {
    this.write(() => {
      Atomics.store(this.i32, STATE, 0);
      Atomics.store(this.i32, PHASE, -1);
      Atomics.store(this.i32, DLEN, 0);
      for (let i = 0; i < MAX_ROWS; i++) Atomics.store(this.i32, CANCEL + i, 0);
      this.f64[T_PROGRESS] = now;
    });
  }

  /** Whether the main thread cancelled batch row `row` (its client went away). */
  isCancelled(row: number): boolean {
    return row < MAX_ROWS && Atomics.load(this.i32, CANCEL + row) === 1;
  }

  private write(body: () => void): void {
    Atomics.add(this.i32, SEQ, 1); // odd: write in progress
    body();
    Atomics.add(this.i32, COUNTER, 1);
    Atomics.add(this.i32, SEQ, 1); // even: consistent
  }
}

/** Main-thread side: consistent reads, and the cancel flags of the current op. */
export class ProgressReader extends ProgressView {
  private readonly dec = new TextDecoder();

  /** Cheap check used by the monitor's poll: the counter changes on every update. */
  counter(): number {
    return Atomics.load(this.i32, COUNTER);
  }

  opId(): number {
    return Atomics.load(this.i32, OP);
  }

  snapshot(): ProgressSnapshot {
    // A write is a handful of stores, so a retry almost always succeeds; the
    // bound only matters for a worker terminated in the middle of a write.
    for (let attempt = 0; ; attempt++) {
      const last = attempt >= 10_000;
      const s1 = Atomics.load(this.i32, SEQ);
      if (s1 & 1 && !last) continue;
      const busy = Atomics.load(this.i32, STATE) === 1;
      const opId = Atomics.load(this.i32, OP);
      const phaseIndex = Atomics.load(this.i32, PHASE);
      const counter = Atomics.load(this.i32, COUNTER);
      const batchSize = Atomics.load(this.i32, BATCH);
      const len = Atomics.load(this.i32, DLEN);
      const opStartMs = this.f64[T_OP];
      const phaseStartMs = this.f64[T_PHASE];
      const lastProgressMs = this.f64[T_PROGRESS];
      const raw = len > 0 ? this.dec.decode(this.bytes.slice(0, len)) : '';
      if (Atomics.load(this.i32, SEQ) !== s1 && !last) continue;
      let details: PhaseDetails = {};
      if (raw) {
        try {
          details = JSON.parse(raw) as PhaseDetails;
        } catch {
          details = { unreadable: raw.slice(0, 80) };
        }
      }
      const phase = phaseIndex >= 0 ? (C2W_PHASES[phaseIndex] ?? null) : null;
      return { busy, opId, phaseIndex, phase, counter, batchSize, opStartMs, phaseStartMs, lastProgressMs, details };
    }
  }

  /** Marks batch row `row` of the current op as cancelled. */
  cancelRow(row: number): void {
    if (row < MAX_ROWS) Atomics.store(this.i32, CANCEL + row, 1);
  }
}
