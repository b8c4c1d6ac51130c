/**
 * The seeded fault plan: which Code2Wav operations hang, in which phase, how.
 *
 * Spec syntax (CLI `--fault`, config file strings): PHASE:KIND[:after=N][:p=P][:min-inflight=C][:ms=M]
 *   - an op is eligible when its op number (1-based, across all workers) is
 *     ≥ after (default 1) and at least C requests are in flight (default 0);
 *   - with p, every eligible op faults with probability P (seeded, repeatable);
 *     without p, only the first eligible op faults (so `after=5` means the 5th op);
 *   - ms is the extra delay of a `slow` fault (default 2000).
 * The first matching spec wins; an op gets at most one fault.
 */
import { StallscopeError } from '../../../shared/errors.ts';
import { C2W_PHASES, type C2wPhase, type FaultKind } from '../../../shared/types.ts';
import { hashInts, mulberry32 } from './kernels/rng.ts';
import type { FaultOrder } from './worker/messages.ts';

export interface FaultSpec {
  phase: C2wPhase;
  kind: FaultKind;
  after?: number;
  p?: number;
  minInflight?: number;
  delayMs?: number;
}

export const DEFAULT_SLOW_MS = 2000;
const KINDS: readonly FaultKind[] = ['block', 'spin', 'slow'];

function bad(spec: string, why: string): never {
  throw new StallscopeError('CONFIG_FAULT_INVALID', `'${spec}': ${why}`, 'fault');
}

export function parseFaultSpec(text: string): FaultSpec {
  const [phase, kind, ...opts] = text.trim().split(':');
  if (!C2W_PHASES.includes(phase as C2wPhase)) bad(text, `phase must be one of ${C2W_PHASES.join(', ')}`);
  if (!KINDS.includes(kind as FaultKind)) bad(text, `kind must be one of ${KINDS.join(', ')}`);
  const spec: FaultSpec = { phase: phase as C2wPhase, kind: kind as FaultKind };
  for (const opt of opts) {
    const [k, v] = opt.split('=');
    const n = Number(v);
    if (v === undefined || v === '' || !Number.isFinite(n)) bad(text, `option '${opt}' needs a number`);
    if (k === 'after') {
      if (!Number.isInteger(n) || n < 1) bad(text, 'after must be an integer ≥ 1');
      spec.after = n;
    } else if (k === 'p') {
      if (n < 0 || n > 1) bad(text, 'p must be within [0, 1]');
      spec.p = n;
    } else if (k === 'min-inflight') {
      if (!Number.isInteger(n) || n < 0) bad(text, 'min-inflight must be an integer ≥ 0');
      spec.minInflight = n;
    } else if (k === 'ms') {
      if (n < 0) bad(text, 'ms must be ≥ 0');
      spec.delayMs = n;
    } else bad(text, `unknown option '${k}' (after, p, min-inflight, ms)`);
  }
  return spec;
}

/** Accepts parsed specs or spec strings (config files may use either). */
export function normalizeFaults(faults: ReadonlyArray<FaultSpec | string> | undefined): FaultSpec[] {
  return (faults ?? []).map((f) => {
    if (typeof f === 'string') return parseFaultSpec(f);
    const text = [
      f.phase,
      f.kind,
      f.after && `after=${f.after}`,
      f.p !== undefined && `p=${f.p}`,
      f.minInflight !== undefined && `min-inflight=${f.minInflight}`,
      f.delayMs !== undefined && `ms=${f.delayMs}`,
    ]
      .filter(Boolean)
      .join(':');
    return parseFaultSpec(text);
  });
}

export class FaultPlan {
  private readonly rngs: Array<() => number>;
  private readonly fired: boolean[];
  constructor(
    readonly specs: FaultSpec[],
    seed: number,
  ) {
    this.rngs = specs.map((_, i) => mulberry32(hashInts(seed, i, 0xfa17)));
    this.fired = specs.map(() => false);
  }

  /** Decides the fault (if any) of op number `opId` with `inflight` requests in flight. */
  decide(opId: number, inflight: number): FaultOrder | null {
    let chosen: FaultOrder | null = null;
    this.specs.forEach((s, i) => {
      // Draw for every op, so a spec's decisions depend only on the seed and the op number.
      const draw = s.p !== undefined ? this.rngs[i]() : 0;
      if (chosen) return;
      if (opId < (s.after ?? 1) || inflight < (s.minInflight ?? 0)) return;
      if (s.p !== undefined ? draw >= s.p : this.fired[i]) return;
      this.fired[i] = true;
      chosen = { phase: s.phase, kind: s.kind, delayMs: s.delayMs ?? DEFAULT_SLOW_MS };
    });
    return chosen;
  }
}
