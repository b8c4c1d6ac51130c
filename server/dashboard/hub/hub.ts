/**
 * The one broadcaster. Every event of a live run — from the engine, from a
 * CLI `--report-to`, from target telemetry — enters here: it gets the run's
 * next `seq`, is folded into the run's state, kept in a bounded in-memory
 * ring, queued for the batched store writer, and announced to the WebSocket
 * sessions (which read it back by seq at their own pace). Producers never
 * see a socket; sessions never see a producer.
 */
import type { RunEvent, RunState } from '../../../shared/protocol.ts';
import type { TelemetryEvent } from '../../../shared/telemetry.ts';
import type { Store } from '../store/store.ts';
import { RunTracker, telemetryEffects } from './runTracker.ts';
import type { Effects } from '../store/writer.ts';

/** A serialized numbered event: `json` is the RunEvent. */
export interface StoredEvent {
  seq: number;
  json: string;
}

/** What a WebSocket session listens to. */
export interface HubListener {
  onAppend(runId: string): void;
  onActiveChanged(): void;
  onRemoved(runId: string): void;
}

interface LiveRun {
  tracker: RunTracker;
  ring: StoredEvent[];
  /** Index in `ring` of the oldest kept event (ring is compacted lazily). */
  ringHead: number;
}

export class Hub {
  private readonly live = new Map<string, LiveRun>();
  private readonly listeners = new Set<HubListener>();
  /** x-request-id → live run, from the runs' own queued/sent events (works with any request-id prefix). */
  private readonly byRequestId = new Map<string, string>();
  private readonly ringSize: number;

  constructor(
    readonly store: Store,
    opts: { ringSize?: number } = {},
  ) {
    this.ringSize = opts.ringSize ?? 50_000;
    store.setStateSource((id) => this.live.get(id)?.tracker.state);
  }

  /** Starts tracking a run whose row already exists; `fromSeq` continues an existing stream. */
  open(runId: string, label: string | null, fromSeq = 0): RunTracker {
    const tracker = this.newTracker(runId, label);
    tracker.state.seq = fromSeq;
    this.live.set(runId, { tracker, ring: [], ringHead: 0 });
    this.emitActiveChanged();
    return tracker;
  }

  private newTracker(runId: string, label: string | null): RunTracker {
    const tracker = new RunTracker(runId, label);
    tracker.onForget = (rid) => {
      if (this.byRequestId.get(rid) === runId) this.byRequestId.delete(rid);
    };
    return tracker;
  }

  isActive(runId: string): boolean {
    return this.live.has(runId);
  }

  activeIds(): string[] {
    return [...this.live.keys()];
  }

  tracker(runId: string): RunTracker | undefined {
    return this.live.get(runId)?.tracker;
  }

  /** Appends one event to a live run; returns its seq. */
  append(runId: string, event: RunEvent): number {
    const run = this.live.get(runId);
    if (!run) throw new Error(`run ${runId} is not live`);
    const seq = run.tracker.state.seq + 1;
    this.publish(runId, run, seq, event, run.tracker.apply(seq, event));
    return seq;
  }

  /**
   * Appends a reported batch all or nothing; returns the last seq. Every event
   * is folded first, and only then numbered into the ring, the store and the
   * sessions. If folding throws part-way (a bug: the batch was validated whole
   * before), the run's state is rebuilt from its committed stream and the
   * error rethrown: the batch changed nothing and used no seq
   * (docs/design.md#peer-bounds).
   */
  appendBatch(runId: string, events: readonly RunEvent[]): number {
    const run = this.live.get(runId);
    if (!run) throw new Error(`run ${runId} is not live`);
    const first = run.tracker.state.seq + 1;
    const effects: Effects[] = [];
    try {
      for (const event of events) effects.push(run.tracker.apply(first + effects.length, event));
    } catch (e) {
      this.rebuild(runId, run);
      throw e;
    }
    events.forEach((event, i) => this.publish(runId, run, first + i, event, effects[i]));
    return first + events.length - 1;
  }

  /** A fresh tracker fed the run's committed stream: the state as it was before a batch that failed part-way. */
  private rebuild(runId: string, run: LiveRun): void {
    this.store.writer.flush();
    const tracker = this.newTracker(runId, run.tracker.state.label);
    const PAGE = 10_000;
    for (let after = 0; ;) {
      const page = this.store.runs.eventsAfter(runId, after, PAGE);
      for (const e of page) tracker.apply(e.seq, JSON.parse(e.json) as RunEvent);
      if (page.length < PAGE) break;
      after = page[page.length - 1].seq;
    }
    run.tracker = tracker;
  }

  /** Numbers a folded event into the ring, the store's queue and the sessions. */
  private publish(runId: string, run: LiveRun, seq: number, event: RunEvent, effects: Effects): void {
    // Only a sent request can have telemetry from the server (a queued one is not indexed: a million queued is no cost).
    if (event.type === 'request.sent') this.byRequestId.set(event.requestId, runId);
    const json = JSON.stringify(event);
    run.ring.push({ seq, json });
    if (run.ring.length - run.ringHead > this.ringSize) run.ringHead++;
    if (run.ringHead > this.ringSize) {
      run.ring = run.ring.slice(run.ringHead);
      run.ringHead = 0;
    }
    this.store.writer.push(runId, seq, json, effects);
    for (const l of this.listeners) l.onAppend(runId);
  }

  /**
   * Appends a telemetry event to a run, live or stored: a live run takes it
   * like any event; a stored run that is no longer live (a late flush, a CI
   * job reporting after the fact) gets it at its next seq, and a watchdog
   * stall goes to its stall reports. Returns the seq, or null when no such
   * run exists.
   */
  appendTelemetry(runId: string, event: TelemetryEvent): number | null {
    return this.appendTelemetryBatch(runId, [event]);
  }

  /** Like appendTelemetry for several events of one run, with one commit for a stored run (not one per event). */
  appendTelemetryBatch(runId: string, events: readonly TelemetryEvent[]): number | null {
    const live = this.live.get(runId);
    if (live) {
      let seq = live.tracker.state.seq;
      for (const e of events) seq = this.append(runId, telemetryRunEvent(e, live.tracker.state.startedAtMs));
      return seq;
    }
    // Anything queued for this run is committed first, so last_seq is current.
    this.store.writer.flush();
    const stored = this.store.runs.get(runId);
    if (!stored) return null;
    let seq = stored.lastSeq;
    const startedAtMs = stored.startedAtMs ?? stored.state?.startedAtMs ?? null;
    for (const e of events) {
      const runEvent = telemetryRunEvent(e, startedAtMs);
      this.store.writer.push(runId, ++seq, JSON.stringify(runEvent), telemetryEffects(e));
    }
    this.store.writer.flush();
    return seq;
  }

  /** Stops tracking: flushes the writer so the store holds every event, then tells sessions. */
  close(runId: string): RunState | undefined {
    const run = this.live.get(runId);
    if (!run) return undefined;
    this.store.writer.flush();
    this.live.delete(runId);
    for (const rid of [...[...run.tracker.requests.values()].map((r) => r.requestId), ...run.tracker.recentlyEnded()])
      if (this.byRequestId.get(rid) === runId) this.byRequestId.delete(rid);
    this.emitActiveChanged();
    return run.tracker.state;
  }

  /** The run was deleted: sessions drop it. */
  removed(runId: string): void {
    for (const l of this.listeners) l.onRemoved(runId);
  }

  snapshot(): RunState[] {
    return [...this.live.values()].map((r) => structuredClone(r.tracker.state));
  }

  /** Last seq of a run (live or stored); null if the run does not exist. */
  headSeq(runId: string): number | null {
    const run = this.live.get(runId);
    if (run) return run.tracker.state.seq;
    const stored = this.store.runs.get(runId);
    return stored ? stored.lastSeq : null;
  }

  /** Events with seq > after, up to `limit`, from memory when the ring still has them, else from the store. */
  readAfter(runId: string, after: number, limit: number): StoredEvent[] {
    const run = this.live.get(runId);
    if (run) {
      const first = run.ring[run.ringHead];
      if (first && after + 1 >= first.seq) {
        const start = run.ringHead + (after + 1 - first.seq);
        return run.ring.slice(start, start + limit);
      }
      if (after >= run.tracker.state.seq) return [];
      // Older than the ring: those are committed once the writer has flushed.
      this.store.writer.flush();
    }
    return this.store.runs.eventsAfter(runId, after, limit);
  }

  /** The live run that sent this request id, if any. */
  runOfRequest(requestId: string): string | undefined {
    return this.byRequestId.get(requestId);
  }

  subscribe(l: HubListener): () => void {
    this.listeners.add(l);
    return () => this.listeners.delete(l);
  }

  private emitActiveChanged(): void {
    for (const l of this.listeners) l.onActiveChanged();
  }
}

/** A telemetry event on the run's clock: `t` = ms since the run started (0 before it did). */
function telemetryRunEvent(event: TelemetryEvent, startedAtMs: number | null | undefined): RunEvent {
  return { type: 'telemetry', t: startedAtMs ? event.ts - startedAtMs : 0, event };
}
