/**
 * Live state of one run, folded from its numbered events: the light
 * `RunState` that snapshots carry, a row per request not yet ended (by the
 * one request fold, shared/requests/requestLifecycle.ts; the store writes it when the
 * request ends), where each request id stands in Code2Wav
 * (to name the phase a breaker cause was stuck in), and the stall reports.
 * Pure bookkeeping: no I/O, no timers.
 */
import type { RunEvent, RunState } from '../../../shared/protocol/protocol.ts';
import { bulkUnsent, emptyCounts } from '../../../shared/requests/outcomes.ts';
import { foldRun, type RunLevelEvent } from '../../../shared/runView/runFold.ts';
import { blankRequest, type RequestEvent, type RequestLifecycle } from '../../../shared/requests/requestLifecycle.ts';
import { LiveRequests } from '../../../shared/requests/liveRequests.ts';
import { unsentRange } from '../../../shared/requests/endedRange.ts';
import { storedRow, type RowMetrics } from '../../../shared/requests/storedRow.ts';
import type { RequestRow } from '../../../shared/protocol/apiSchemas.ts';
import type { TelemetryEvent } from '../../../shared/protocol/telemetry.ts';
import { isStallEvidence } from '../../../shared/stalls/stallReport.ts';
import type { Effects } from '../store/common/effects.ts';
import { blockedPhase, firstTimeout } from '../../../shared/stalls/stallEvidence.ts';

/** Shared "nothing to persist" result (never mutated). */
const NONE: Effects = Object.freeze({});

/** What a telemetry event alone asks the store to keep: a stall report, a recovery. */
export function telemetryEffects(t: TelemetryEvent): Effects {
  if (t.type === 'watchdog.stall') return { stall: t.report };
  if (t.type === 'watchdog.recovered')
    return { recovered: { workerId: t.workerId, opId: t.opId, stalledS: t.stalledS, ts: t.ts } };
  return NONE;
}

const NO_METRICS: RowMetrics = { ttftS: 0, e2elS: 0, audioTtfpS: 0, promptLen: 0, error: '' };

/** The stored row of a request nothing happened to (an import fills it from a result file). */
export function blankRow(index: number, requestId: string): RequestRow {
  return storedRow(blankRequest(index, requestId), NO_METRICS);
}

/**
 * How many ended requests keep their Code2Wav whereabouts: a breaker cause or
 * a stall report may name a request just after it ended (its timeout fired,
 * then the breaker tripped), never thousands of requests later.
 */
export const RECENTLY_ENDED = 1024;
/** Telemetry may name ids this run never ended (another client's, a typo): the oldest are forgotten past this. */
export const MAX_TRACKED_IDS = 65_536;

/** Map.set that keeps at most MAX_TRACKED_IDS keys (a Map iterates oldest first). */
function remember<V>(m: Map<string, V>, key: string, value: V): void {
  if (m.size >= MAX_TRACKED_IDS && !m.has(key)) m.delete(m.keys().next().value!);
  m.set(key, value);
}

export class RunTracker {
  readonly state: RunState;
  /** The requests not yet ended; an ended one's row goes to the store (the `endedRow` effect). */
  private readonly live: LiveRequests;
  /** Request ids of the last RECENTLY_ENDED ended requests, oldest first (a ring). */
  private readonly ended: (string | undefined)[] = new Array<string | undefined>(RECENTLY_ENDED);
  private endedCount = 0;
  /** Phase of the op a request is in now; cleared when that op ends. */
  private readonly lastPhase = new Map<string, string>();
  /** Worker of the last op that carried a request. */
  private readonly workerOf = new Map<string, number>();
  /** The op running on each worker now (absent when idle), with its current phase. */
  private readonly running = new Map<number, { opId: number; phase: string | null }>();
  /** Whether a structural timeout was seen: only the first is stall evidence (docs/design.md#stall-fingerprints). */
  private timedOut = false;

  constructor(runId: string, label: string | null, startedAtMs: number | null = null) {
    this.state = {
      runId,
      status: 'running',
      seq: 0,
      startedAtMs,
      label,
      counts: emptyCounts(),
      inFlight: 0,
      breaker: { tripped: false, cause: null },
      verdict: null,
    };
    this.live = new LiveRequests(this.state);
  }

  /** Rows of the requests not yet ended, by dataset index: a million-request run holds only its in-flight rows. */
  get requests(): ReadonlyMap<number, RequestLifecycle> {
    return this.live.rows;
  }

  /** One request event through the one fold; an ended request's row goes to the store. */
  private applyRequest(e: RequestEvent): Effects {
    const step = this.live.apply(e);
    if (!step?.ended) return NONE;
    const row = this.live.lastRow!;
    this.retire(row.requestId);
    return { endedRow: storedRow(row, step.ended) };
  }

  /** A timeout through the fold; the run's first is kept with the phase its request was blocked in. */
  private applyTimeout(e: Extract<RunEvent, { type: 'request.timed_out' }>): Effects {
    const where = this.timedOut ? undefined : this.phaseOf(e.outcome.requestId);
    const effects = this.applyRequest(e);
    if (this.timedOut) return effects;
    this.timedOut = true;
    const o = e.outcome;
    return { ...effects, firstTimeout: firstTimeout(o.index, o.requestId, e.kind, e.t, blockedPhase(where)) };
  }

  /** Remembers an ended request; forgets where the one that ended RECENTLY_ENDED requests ago stood. */
  private retire(requestId: string): void {
    const slot = this.endedCount++ % RECENTLY_ENDED;
    const old = this.ended[slot];
    this.ended[slot] = requestId;
    if (old !== undefined && old !== requestId) {
      this.lastPhase.delete(old);
      this.workerOf.delete(old);
      this.onForget?.(old);
    }
  }

  /** Told when an ended request id is forgotten (the hub drops it from its request-id index). */
  onForget: ((requestId: string) => void) | null = null;

  /** Ids of the recently ended requests still remembered. */
  recentlyEnded(): string[] {
    return this.ended.filter((id): id is string => id !== undefined);
  }

  /** Folds one numbered event in; returns what the store must persist. */
  apply(seq: number, e: RunEvent): Effects {
    this.state.seq = seq;
    return this.fold(e);
  }

  /** A run-level event through the one run fold (shared/runView/runFold.ts), as the browser folds it. */
  private foldRun(e: RunLevelEvent): void {
    Object.assign(this.state, foldRun(this.state, e));
  }

  /** Folds one event in before it is numbered (the store numbers it); returns what the store must persist. */
  fold(e: RunEvent): Effects {
    switch (e.type) {
      case 'run.started':
        this.foldRun(e);
        return e.serverIdentity ? { serverIdentity: e.serverIdentity } : {};
      case 'request.timed_out':
        return this.applyTimeout(e);
      case 'request.queued':
      case 'request.sent':
      case 'request.first_token':
      case 'request.first_audio':
      case 'request.progress':
      case 'request.completed':
      case 'request.failed':
      case 'request.cancelled':
      case 'request.unsent':
        // Rows, in-flight and outcome counts (shared/requests/outcomes.ts) by the one fold, whatever order the events come in.
        return this.applyRequest(e);
      case 'requests.unsent': {
        // Unsent requests, ended together: counted in one step and stored as one range whose rows
        // are synthesised when read, not a row each (docs/design.md#bulk-unsent).
        const { n, ended } = bulkUnsent(e);
        this.live.endRange(e.from, e.to, ended, n);
        return { endedRange: unsentRange(e, this.live.idPrefix) };
      }
      case 'breaker.tripped': {
        // The engine cannot see telemetry; the dashboard names the phase the cause was stuck in, in the
        // event itself (stored and sent on with it), so every fold of the stream keeps the same cause.
        const lastPhase = e.cause.lastPhase ?? this.phaseOf(e.cause.requestId);
        if (lastPhase && !e.cause.lastPhase) e.cause.lastPhase = lastPhase;
        this.foldRun(e);
        return {};
      }
      case 'run.stopped':
      case 'run.finished':
        this.foldRun(e);
        return {};
      // The Seed-TTS gate's transcripts, and what the server answered at the stall, live in the
      // event stream; the summary and the result carry their keys.
      case 'run.warning':
      case 'accuracy.started':
      case 'accuracy.item':
      case 'server.liveness':
        return {};
      case 'server.stacks':
        // A py-spy capture of the server's tree is kept with the run's stall reports; one that read no
        // stack (from a reporter older than the probe that says so instead) is not evidence of a stall.
        return isStallEvidence(e.report) ? { stall: e.report } : {};
      case 'run.status':
        this.foldRun(e);
        return {};
      case 'telemetry':
        return this.applyTelemetry(e.event);
      default:
        // Unreachable for checked input (routes check events against the protocol first); never `undefined` effects.
        return NONE;
    }
  }

  private applyTelemetry(t: TelemetryEvent): Effects {
    switch (t.type) {
      case 'c2w.op.begin':
        this.running.set(t.workerId, { opId: t.opId, phase: null });
        for (const id of t.requestIds) remember(this.workerOf, id, t.workerId);
        return {};
      case 'c2w.phase':
        this.inPhase(t.workerId, t.opId, t.requestIds, t.phase);
        return {};
      case 'c2w.op.end': {
        // The op is over: its phase no longer says where its requests are.
        if (this.running.get(t.workerId)?.opId === t.opId) this.running.delete(t.workerId);
        for (const id of t.requestIds) this.lastPhase.delete(id);
        return {};
      }
      case 'watchdog.stall': {
        const r = t.report;
        this.inPhase(r.workerId, r.opId, r.requestIds, r.phase);
        return telemetryEffects(t);
      }
      default:
        return telemetryEffects(t);
    }
  }

  private inPhase(workerId: number, opId: number, requestIds: string[], phase: string): void {
    const op = this.running.get(workerId);
    if (op?.opId === opId) op.phase = phase;
    else if (!op) this.running.set(workerId, { opId, phase });
    for (const id of requestIds) {
      remember(this.lastPhase, id, phase);
      remember(this.workerOf, id, workerId);
    }
  }

  /**
   * Where a request id stands in Code2Wav: the phase of the op it is in; when
   * its op has ended, `queued behind op N (phase)` if its worker is running
   * another op, else `waiting for Code2Wav`; undefined if no telemetry named it.
   */
  phaseOf(requestId: string): string | undefined {
    const phase = this.lastPhase.get(requestId);
    if (phase !== undefined) return phase;
    const worker = this.workerOf.get(requestId);
    if (worker === undefined) return undefined;
    const op = this.running.get(worker);
    if (!op) return 'waiting for Code2Wav';
    return `queued behind op ${op.opId}${op.phase ? ` (${op.phase})` : ''}`;
  }
}
