/**
 * The story a run page tells, pure and testable in Node: the outcome cards
 * (one vocabulary with the metrics table, counted by the shared rule), the
 * time requests spent queued behind a stalled Code2Wav op, how each request
 * ended, and one sentence tying the stall, the timeout and the cancellation
 * together. Each takes plain data and returns plain data.
 */
import { normalizeCounts } from '../requests/outcomes.ts';
import { isServerStacks } from '../stalls/stallReport.ts';
import { tripEvidenceText, type StoppedBy } from '../config/stopRules.ts';
import type { BreakerCause, RunCounts } from '../types.ts';
import type { OpRecord, RequestView, RunModel, StallRecord } from './runModel.ts';
import { count, plural } from '../../shared/format.ts';
import { rangeWords, toRuns } from './requestRanges.ts';
import { stopCancelLabel, stopCancelTitle, stoppedByRule, type StopLike } from '../requests/stopLabel.ts';

/** The parts of `failed`, in the order the design lists them (docs/design.md#counting). */
export const FAILED_PARTS = [
  { key: 'timedOut', id: 'timed_out', label: 'timed out', title: 'hit their own timeout' },
  {
    key: 'cancelledAfterTimeout',
    id: 'cancelled_after_timeout',
    label: 'cancelled after timeout',
    title: 'cancelled when the breaker tripped (the fail-fast timeout or another stop rule), in flight or queued',
  },
  {
    key: 'cancelled',
    id: 'cancelled',
    label: 'cancelled',
    title: 'cancelled by an interrupt (Ctrl-C, SIGTERM or the dashboard), in flight or queued',
  },
  {
    key: 'unsent',
    id: 'not_dispatched',
    label: 'unsent',
    title: 'unsent (result key not_dispatched_requests): part of the cancellation above',
  },
  { key: 'errored', id: 'errored', label: 'errored', title: 'failed with an error (HTTP, stream, connection)' },
] as const satisfies readonly { key: keyof RunCounts; id: string; label: string; title: string }[];

type FailedPart = (typeof FAILED_PARTS)[number];

/** A part's label as people read it: the requests a stop cancelled are named by the rule that stopped the run. */
export function partLabel(p: FailedPart, stop: StopLike): string {
  return p.key === 'cancelledAfterTimeout' ? stopCancelLabel(stop) : p.label;
}

export function partTitle(p: FailedPart, stop: StopLike): string {
  return p.key === 'cancelledAfterTimeout' ? stopCancelTitle(stop) : p.title;
}

export interface OutcomeCard {
  id: string;
  label: string;
  value: number;
  title: string;
  /** A part of `failed` (drawn inside it). */
  part: boolean;
}

/**
 * The cards: total, in flight (live only), completed, failed and, inside
 * failed, each part that is not zero. `failed` is everything that did not
 * complete, as in the metrics table's "Failed requests".
 */
export function outcomeCards(c: RunCounts, inFlight?: number, stop?: StopLike): OutcomeCard[] {
  const out: OutcomeCard[] = [
    { id: 'total', label: 'total', value: c.total, title: 'requests in the run', part: false },
  ];
  if (inFlight !== undefined)
    out.push({ id: 'inflight', label: 'in flight', value: inFlight, title: 'sent, not ended yet', part: false });
  out.push(
    { id: 'completed', label: 'completed', value: c.completed, title: 'Successful requests', part: false },
    {
      id: 'failed',
      label: 'failed',
      value: c.failed,
      title: 'Failed requests: every request that ended without completing',
      part: false,
    },
  );
  for (const p of FAILED_PARTS)
    if (c[p.key] > 0)
      out.push({ id: p.id, label: partLabel(p, stop), value: c[p.key], title: partTitle(p, stop), part: true });
  return out;
}

/**
 * The counts the page shows: the engine's once the run finished, the live
 * ones while events stream, else the stored ones (an imported run has rows
 * but no events: its counts are the file's, never the empty live ones).
 */
export function shownCounts(
  model: Pick<RunModel, 'summary' | 'seq' | 'counts'>,
  stored: Partial<RunCounts> | null | undefined,
): RunCounts {
  if (model.summary) return normalizeCounts(model.summary.counts);
  const base = normalizeCounts(stored);
  if (model.seq > 0) return { ...model.counts, total: Math.max(model.counts.total, base.total) };
  return base;
}

/** Time a request spent queued behind a stalled op of its worker. */
export interface BlockedWait {
  t0: number;
  t1: number;
  opKey: string;
  opId: number;
  workerId: number;
  phase: string;
}

export const blockedWaitText = (w: BlockedWait): string => `waiting: queued behind op ${w.opId}, ${w.phase}, stalled`;

/**
 * Requests that were waiting behind a stalled op: on the same worker (a
 * request's chunks always go to the worker that holds its caches), not in the
 * op, active when it began. The wait runs from the op's begin (or the
 * request's own last op end, if later) to the request's end, the op's end, or
 * `now`. Keyed by request id.
 */
export function blockedWaits(
  model: Pick<RunModel, 'ops' | 'opsByRequest' | 'requests'>,
  now: number,
): Record<string, BlockedWait> {
  const stalled = Object.values(model.ops).filter((o) => o.stalled);
  const out: Record<string, BlockedWait> = {};
  if (stalled.length === 0) return out;
  for (const row of model.requests) {
    const keys = model.opsByRequest[row.requestId];
    if (!keys || keys.length === 0 || row.sentT === null) continue;
    const own = keys.map((k) => model.ops[k]).filter((o): o is OpRecord => o !== undefined);
    if (own.length === 0) continue;
    const worker = own[own.length - 1].workerId;
    for (const op of stalled) {
      if (op.workerId !== worker || op.requestIds.includes(row.requestId)) continue;
      const end = Math.min(row.endT ?? now, op.endT ?? Infinity);
      if (end <= op.beginT || row.sentT > end) continue;
      let t0 = Math.max(op.beginT, row.sentT);
      for (const o of own) if (o.endT !== null && o.endT <= end) t0 = Math.max(t0, o.endT);
      if (t0 >= end) continue;
      out[row.requestId] = {
        t0,
        t1: end,
        opKey: op.key,
        opId: op.opId,
        workerId: op.workerId,
        phase: op.phases[op.phases.length - 1]?.phase ?? 'unknown phase',
      };
      break;
    }
  }
  return out;
}

const sec = (ms: number) => `${(ms / 1000).toFixed(ms < 10_000 ? 2 : 1)} s`;

const END_WORDS: Record<string, string> = {
  completed: 'completed',
  failed: 'failed with an error',
  timed_out: 'timed out',
  cancelled_after_timeout: 'cancelled by the fail-fast breaker after a timeout',
  cancelled: 'cancelled by an interrupt',
  not_dispatched: 'unsent',
};

/**
 * How a request ended, with the time it ran: "ran 8.00 s, then timed out
 * (total timeout)". Null while it runs.
 */
export function endingText(row: RequestView, stop?: StopLike): string | null {
  if (row.endT === null) return null;
  const how =
    row.status === 'cancelled_after_timeout' && stoppedByRule(stop)
      ? `cancelled: ${stopCancelLabel(stop)}`
      : (END_WORDS[row.status] ?? row.status.replace(/_/g, ' '));
  if (row.sentT === null) return row.status === 'not_dispatched' ? 'unsent' : how;
  const kind = row.status === 'timed_out' && row.timeoutKind ? ` (${row.timeoutKind} timeout)` : '';
  return `ran ${sec(row.endT - row.sentT)}, then ${how}${kind}`;
}

/** One piece of the story: plain text, or a link to requests (one opens it; several show only them). */
export type StoryPart = { text: string } | { text: string; requests: number[] };

/** "#0–#4, #7" from indices, each range a link to exactly its requests. */
function ranges(indices: readonly number[]): StoryPart[] {
  const out: StoryPart[] = [];
  for (const [a, b] of toRuns(indices)) {
    if (out.length) out.push({ text: ', ' });
    const run = Array.from({ length: b - a + 1 }, (_, k) => a + k);
    out.push({ text: rangeWords(run), requests: run });
  }
  return out;
}

export interface StoryInput {
  model: Pick<RunModel, 'ops' | 'opsByRequest' | 'requests' | 'indexById' | 'breaker' | 'finishedT' | 'status'>;
  stalls: readonly StallRecord[];
  counts: RunCounts;
  waits: Record<string, BlockedWait>;
  /** Result key interrupt_cause, when the run was interrupted. */
  interruptCause: string | null;
}

/**
 * One plain sentence, e.g. "Code2Wav op 3 stalled in hift at 1.32 s (worker
 * 0); requests #0–#9 waited behind it; #0 hit its total timeout after 3.00 s,
 * at 4.42 s; the breaker cancelled 58 requests (50 unsent)." Empty when
 * there is nothing to tell (a clean run).
 */
export function runStory({ model, stalls, counts, waits, interruptCause }: StoryInput): StoryPart[][] {
  const clauses: StoryPart[][] = [];
  const idx = (id: string) => model.indexById[id];
  for (const s of stalls) {
    // A py-spy capture of a real server names no Code2Wav op: its own card tells it.
    if (isServerStacks(s.report)) continue;
    const r = s.report;
    const op = model.ops[`${r.workerId}:${r.opId}`];
    const phaseStart = op?.phases.filter((p) => p.phase === r.phase).pop()?.t ?? s.t - r.inPhaseS * 1000;
    const ended = s.recovered ? `, recovered after ${s.recovered.stalledS.toFixed(1)} s` : '';
    clauses.push([
      {
        text: `Code2Wav op ${r.opId} stalled in ${r.phase} at ${sec(Math.max(0, phaseStart))} (worker ${r.workerId})${ended}`,
      },
    ]);
    const inOp = r.requestIds.map(idx).filter((i): i is number => i !== undefined);
    const behind = Object.entries(waits)
      .filter(([, w]) => w.workerId === r.workerId && w.opId === r.opId)
      .map(([id]) => idx(id))
      .filter((i): i is number => i !== undefined);
    const one = (n: number) => n === 1;
    if (inOp.length)
      clauses.push([
        { text: one(inOp.length) ? 'request ' : 'requests ' },
        ...ranges(inOp),
        { text: one(inOp.length) ? ' was in it' : ' were in it' },
      ]);
    if (behind.length)
      clauses.push([
        { text: one(behind.length) ? 'request ' : 'requests ' },
        ...ranges(behind),
        { text: ' waited behind it' },
      ]);
  }
  const timedOut = model.requests.filter((r) => r.status === 'timed_out');
  const cause = model.breaker.cause;
  if (cause) {
    const at = model.breaker.t !== null ? `, at ${sec(model.breaker.t)}` : '';
    clauses.push([
      { text: `#${cause.requestIndex}`, requests: [cause.requestIndex] },
      { text: ` hit its ${cause.kind} timeout after ${cause.elapsedS.toFixed(2)} s${at}` },
    ]);
    const others = timedOut.map((r) => r.index).filter((i) => i !== cause.requestIndex);
    if (others.length) clauses.push([...ranges(others), { text: ` timed out too` }]);
  } else if (timedOut.length) {
    clauses.push([...ranges(timedOut.map((r) => r.index)), { text: ` timed out` }]);
  }
  const stop = model.breaker.stoppedBy;
  // Fail-fast's own rule is told by the timeout clause above; every other rule says what tripped it.
  if (stop && stop.rule !== 'timeouts>=1') {
    const named = stop.requests.map((r) => r.index);
    clauses.push([
      {
        text: `the stop rule ${stop.rule} stopped the run at ${sec(stop.atS * 1000)}: ${tripEvidenceText(stop, false)}`,
      },
      ...(named.length
        ? [{ text: ' (' }, ...ranges(named), { text: stop.omitted ? ` and ${stop.omitted} more)` : ')' }]
        : []),
    ]);
  }
  if (counts.cancelledAfterTimeout > 0)
    clauses.push([
      {
        text: stoppedByRule(stop)
          ? `${plural(counts.cancelledAfterTimeout, 'request')} ${stopCancelLabel(stop)} (${count(counts.unsent)} unsent)`
          : `the breaker cancelled ${plural(counts.cancelledAfterTimeout, 'request')} (${count(counts.unsent)} unsent)`,
      },
    ]);
  if (counts.cancelled > 0) {
    const who = interruptCause === 'dashboard' ? 'the run was cancelled from the dashboard' : 'the run was interrupted';
    const inFlight = counts.cancelled - counts.unsent;
    clauses.push([
      {
        text: `${who}: ${plural(inFlight, 'request')} aborted in flight, ${count(counts.unsent)} unsent`,
      },
    ]);
  }
  return clauses;
}

/** The story as one line of text, as the run page prints it: clauses joined by "; ", a capital, a full stop. */
export function storyText(clauses: readonly StoryPart[][]): string {
  const text = clauses.map((parts) => parts.map((p) => p.text).join('')).join('; ');
  return text ? `${text.charAt(0).toUpperCase()}${text.slice(1)}.` : '';
}

/** What the stored run records beside its event stream (an import has no stream at all). */
interface StoredRunFacts {
  counts: Partial<RunCounts> | null | undefined;
  breaker: { tripped: boolean; cause: BreakerCause | null; stoppedBy?: StoppedBy | null };
}

/** The breaker the page shows (and the stop rule that tripped it): the stream's once it tripped, else the stored one. */
export function shownBreaker(
  model: Pick<RunModel, 'breaker'>,
  stored: StoredRunFacts,
): { tripped: boolean; cause: BreakerCause | null; stoppedBy: StoppedBy | null } {
  return model.breaker.tripped
    ? model.breaker
    : { tripped: stored.breaker.tripped, cause: stored.breaker.cause, stoppedBy: stored.breaker.stoppedBy ?? null };
}

/**
 * The run page's story of a run (and the evidence file's): the model folded
 * from its events, completed by what the stored run records, with the waits
 * behind stalled ops up to `nowT` (the run clock now, or at its end).
 */
export function storyOf(
  model: RunModel,
  stored: StoredRunFacts,
  stalls: readonly StallRecord[],
  nowT: number,
  interruptCause: string | null,
): StoryPart[][] {
  return runStory({
    model: { ...model, breaker: { ...model.breaker, ...shownBreaker(model, stored) } },
    stalls,
    counts: shownCounts(model, stored.counts),
    waits: blockedWaits(model, nowT),
    interruptCause,
  });
}

/**
 * The header's breaker words: a finished run that never tripped says so,
 * rather than "armed". `armed`: fail-fast or any stop rule was given.
 */
export function breakerWords(armed: boolean, tripped: boolean, running: boolean): { state: string; text: string } {
  if (tripped) return { state: 'tripped', text: 'tripped' };
  if (!armed) return { state: 'off', text: 'off' };
  return running ? { state: 'armed', text: 'armed' } : { state: 'not_tripped', text: 'not tripped' };
}

/** A run's interrupt cause in words, or null. */
export function interruptWords(cause: unknown): string | null {
  if (cause === 'dashboard') return 'cancelled from the dashboard';
  if (cause === 'signal') return 'interrupted by a signal';
  return null;
}
