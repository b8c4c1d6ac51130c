/**
 * The verdict of a run (docs/design.md#verdict), with reasons a person can act on.
 *
 * Precedence: `errored` (the run could not start) > `interrupted` (SIGINT,
 * SIGTERM, a crash) > `failed_closed` (a stop rule tripped, or any request
 * timed out, was cancelled by the breaker or unsent: a partial run must never pass, whatever its
 * scores, the Seed-TTS WER included) > `failed` (a failed request, a failed
 * or unevaluable threshold, a Seed-TTS gate with nothing evaluated) >
 * `passed` (every request completed and every threshold holds).
 * Thresholds are always evaluated so their outcome is in the reasons, even
 * when the verdict is already decided by the counts.
 */
import { StallscopeError } from '../errors.ts';
import { tripText, type StoppedBy } from '../config/stopRules.ts';
import type { RunCounts, Verdict } from '../types.ts';
import { count, plural } from '../format.ts';

export type ThresholdOp = '<=' | '<' | '>=' | '>' | '==' | '!=';

export interface Threshold {
  /** The expression as written, e.g. `mean_e2el_ms<=5000`. */
  expr: string;
  /** A result key, e.g. `mean_e2el_ms` or `failed`. */
  key: string;
  op: ThresholdOp;
  value: number;
}

const THRESHOLD =
  /^\s*([A-Za-z_][A-Za-z0-9_.]*)\s*(<=|>=|==|!=|<|>)\s*([+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?)\s*$/;

/** Parse `KEY OP NUMBER`; throws CONFIG_INVALID naming the expression when it is malformed. */
export function parseThreshold(expr: string): Threshold {
  const m = THRESHOLD.exec(expr);
  if (!m) {
    throw new StallscopeError(
      'CONFIG_INVALID',
      `threshold ${JSON.stringify(expr)} is not KEY OP NUMBER (OP one of <=, <, >=, >, ==, !=), e.g. mean_e2el_ms<=5000`,
      'threshold',
    );
  }
  return { expr: expr.trim(), key: m[1], op: m[2] as ThresholdOp, value: Number(m[3]) };
}

export function compare(actual: number, op: ThresholdOp, value: number): boolean {
  switch (op) {
    case '<=':
      return actual <= value;
    case '<':
      return actual < value;
    case '>=':
      return actual >= value;
    case '>':
      return actual > value;
    case '==':
      return actual === value;
    case '!=':
      return actual !== value;
    default: {
      const never: never = op;
      throw new Error(`unknown operator ${String(never)}`);
    }
  }
}

export interface ThresholdOutcome {
  expr: string;
  holds: boolean;
  reason: string;
}

/** Evaluate one threshold against the result; a missing or non-numeric key fails, never passes silently. */
export function evaluateThreshold(expr: string, metrics: Record<string, unknown>): ThresholdOutcome {
  let t: Threshold;
  try {
    t = parseThreshold(expr);
  } catch (err) {
    return { expr, holds: false, reason: (err as Error).message };
  }
  if (!Object.prototype.hasOwnProperty.call(metrics, t.key)) {
    return { expr: t.expr, holds: false, reason: `threshold ${t.expr} failed: the result has no key ${t.key}` };
  }
  const actual = metrics[t.key];
  if (typeof actual !== 'number' || Number.isNaN(actual)) {
    return {
      expr: t.expr,
      holds: false,
      reason: `threshold ${t.expr} failed: ${t.key} is ${JSON.stringify(actual)}, not a number`,
    };
  }
  const holds = compare(actual, t.op, t.value);
  return {
    expr: t.expr,
    holds,
    reason: `threshold ${t.expr} ${holds ? 'holds' : 'failed'}: ${t.key} = ${formatMetricValue(actual, t.key)}`,
  };
}

export interface VerdictInput {
  counts: RunCounts;
  metrics: Record<string, unknown>;
  thresholds: readonly string[];
  interrupted?: boolean;
  /** Who interrupted the run (result key `interrupt_cause`), when known. */
  interruptCause?: 'signal' | 'dashboard' | null;
  errored?: boolean;
  /**
   * The Seed-TTS gate's counts when `--seed-tts-wer-eval` ran: with none
   * evaluated the run fails (vLLM-Omni's CI rule), whatever the thresholds.
   */
  seedTts?: { evaluated: number; mean: number | null; median: number | null; excluded: number } | null;
  /** The stop rule that stopped the run (docs/design.md#stop-rules): the run fails closed, saying which and why. */
  stoppedBy?: StoppedBy | null;
}

export interface VerdictOutcome {
  verdict: Verdict;
  reasons: string[];
}

function interruptReason(cause: VerdictInput['interruptCause']): string {
  if (cause === 'dashboard') return 'the run was cancelled from the dashboard; in-flight requests were aborted';
  if (cause === 'signal')
    return 'the run was interrupted by a signal (SIGINT/SIGTERM); in-flight requests were aborted';
  return 'the run was interrupted (signal or crash); in-flight requests were aborted';
}

/**
 * A metric value as the reasons print it, at the metric's precision: two
 * decimals as `vllm bench serve` prints its metrics (`mean_ttft_ms = 11.93`,
 * not 11.932345678), four for error rates (`seed_tts_*`: a WER of 0.0156 is
 * the Chinese bound, and two decimals would print it as 0.02).
 */
export function formatMetricValue(v: number, key = ''): string {
  if (Number.isInteger(v) || !Number.isFinite(v)) return String(v);
  const fixed = v.toFixed(key.startsWith('seed_tts_') ? 4 : 2);
  // A small non-zero value keeps two significant digits rather than reading as 0.00.
  return Number(fixed) === 0 ? String(Number(v.toPrecision(2))) : fixed;
}

export function evaluateVerdict(input: VerdictInput): VerdictOutcome {
  const { counts } = input;
  const reasons: string[] = [];
  if (input.errored) reasons.push('the run could not start');
  if (input.interrupted) reasons.push(interruptReason(input.interruptCause));
  const partial = counts.timedOut + counts.cancelledAfterTimeout + counts.cancelled + counts.unsent;
  const stop = input.stoppedBy ?? null;
  if (stop) reasons.push(tripText(stop));
  if (counts.timedOut > 0) reasons.push(`${plural(counts.timedOut, 'request')} timed out`);
  // unsent is the subset of whichever cancellation applied (shared/requests/outcomes.ts):
  // a run is stopped once, by the breaker or by an interrupt, so at most one of them has any.
  if (counts.cancelledAfterTimeout > 0) {
    const after = stop && stop.kind !== 'timeouts' ? `when the stop rule ${stop.rule} tripped` : 'after a timeout';
    reasons.push(
      `${plural(counts.cancelledAfterTimeout, 'request')} cancelled ${after} (${count(counts.unsent)} never sent)`,
    );
  } else if (counts.cancelled > 0) {
    reasons.push(
      `${plural(counts.cancelled, 'request')} cancelled by the interrupt (${count(counts.unsent)} never sent)`,
    );
  } else if (counts.unsent > 0) {
    reasons.push(`${plural(counts.unsent, 'request')} never sent`);
  }
  if (counts.errored > 0) reasons.push(`${plural(counts.errored, 'request')} failed`);
  // `failed` is everything that ended without completing; the rest never ended.
  const unended = counts.total - counts.completed - counts.failed;
  if (unended > 0) reasons.push(`${plural(unended, 'request')} did not complete`);
  if (counts.total === 0) reasons.push('the run has no requests');
  const gate = input.seedTts;
  if (gate && gate.evaluated === 0)
    reasons.push(
      `seed-tts WER gate: no utterance could be evaluated (seed_tts_content_evaluated == 0, ${count(gate.excluded)} excluded)`,
    );
  else if (gate)
    reasons.push(
      `seed-tts WER over ${plural(gate.evaluated, 'utterance')}: mean ${gate.mean}, median ${gate.median}` +
        (gate.excluded > 0 ? ` (${count(gate.excluded)} excluded)` : ''),
    );
  const outcomes = input.thresholds.map((expr) => evaluateThreshold(expr, input.metrics));
  for (const o of outcomes) reasons.push(o.reason);

  let verdict: Verdict;
  if (input.errored) verdict = 'errored';
  else if (input.interrupted) verdict = 'interrupted';
  else if (partial > 0 || stop) verdict = 'failed_closed';
  else if (
    counts.total === 0 ||
    counts.completed < counts.total ||
    outcomes.some((o) => !o.holds) ||
    gate?.evaluated === 0
  )
    verdict = 'failed';
  else verdict = 'passed';
  if (verdict === 'failed_closed') reasons.unshift('failed closed: a partial run never passes, whatever its scores');
  if (verdict === 'passed') reasons.unshift(`all ${counts.total} requests completed`);
  return { verdict, reasons };
}
