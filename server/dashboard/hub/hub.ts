/**
 * The one broadcaster. Every event of a live run — from the engine, from a
 * CLI `--report-to`, from target telemetry — enters here: it is folded into
 * the run's state and queued to the store, which numbers it (`seq` comes from
 * the database: at once for the embedded store, at commit when several
 * dashboards share one database; docs/design.md#team-dashboard). Numbered, it
 * is kept in a bounded in-memory ring and announced to the WebSocket sessions
 * (which read it back by seq at their own pace). Events another dashboard
 * process wrote are announced too, and read from the store. Producers never
 * see a socket; sessions never see a producer.
 */
import type { RunEvent, RunState } from '../../../shared/protocol/protocol.ts';
import type { TelemetryEvent } from '../../../shared/protocol/telemetry.ts';
import type { DashboardStore } from '../store/common/storeApi.ts';
import type { RemoteChange, StoredEvent } from '../store/common/records.ts';
import { RunTracker, telemetryEffects } from './runTracker.ts';
import { emptyCounts } from '../../../shared/requests/outcomes.ts';
import type { Effects } from '../store/common/effects.ts';

export type { StoredEvent } from '../store/common/records.ts';

/** What a WebSocket session listens to. */
export interface HubListener {
  onAppend(runId: string): void;
  /** The store's database went away or came back. */
  onStoreHealth(): void;
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
    readonly store: DashboardStore,
    opts: { ringSize?: number } = {},
  ) {
    this.ringSize = opts.ringSize ?? 50_000;
    // The store emits and the hub listens; the hub hands it each live run's state (liveState), never the reverse.
    store.ingest.subscribe({
      numbered: (runId, seq, json) => this.numbered(runId, seq, json),
      remote: (c) => this.remote(c),
      healthChanged: () => {
        for (const l of this.listeners) l.onStoreHealth();
      },
    });
  }

  /** Starts tracking a run whose row already exists (its stream continues from its stored seq). */
  open(runId: string, label: string | null): RunTracker {
    const tracker = this.newTracker(runId, label);
    this.live.set(runId, { tracker, ring: [], ringHead: 0 });
    this.store.ingest.liveState(runId, tracker.state);
    this.store.ingest.announce(runId, 'running');
    this.emitActiveChanged();
    return tracker;
  }

  /**
   * Another process wrote to the shared database: sessions read what is new from the store. A run that
   * process ended is no longer live here either (this process took some of its events: it ends nothing).
   */
  private remote(c: RemoteChange): void {
    if (c.kind === 'events') {
      for (const l of this.listeners) l.onAppend(c.runId);
      return;
    }
    if (c.status !== 'running') {
      this.live.delete(c.runId);
      this.store.ingest.liveState(c.runId, null);
      this.remoteLive.delete(c.runId);
    } else if (!this.live.has(c.runId)) this.remoteLive.set(c.runId, remoteState(c.runId));
    this.emitActiveChanged();
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

  /** Appends one event to a live run; returns the run's last numbered seq (this one's, for the embedded store). */
  append(runId: string, event: RunEvent): number {
    const run = this.live.get(runId);
    if (!run) throw new Error(`run ${runId} is not live`);
    this.queue(runId, event, run.tracker.fold(event));
    return run.tracker.state.seq;
  }

  /**
   * Appends a reported batch all or nothing; returns the run's last numbered
   * seq. Every event is folded first, and only then queued to the store. If
   * folding throws part-way (a bug: the batch was validated whole before), the
   * run's state is rebuilt from its committed stream and the error rethrown:
   * the batch changed nothing and used no seq (docs/design.md#peer-bounds).
   */
  appendBatch(runId: string, events: readonly RunEvent[]): number {
    const run = this.live.get(runId);
    if (!run) throw new Error(`run ${runId} is not live`);
    const effects: Effects[] = [];
    try {
      for (const event of events) effects.push(run.tracker.fold(event));
    } catch (e) {
      void this.rebuild(runId, run);
      throw e;
    }
    events.forEach((event, i) => this.queue(runId, event, effects[i]));
    return run.tracker.state.seq;
  }

  /**
   * A fresh tracker fed the run's committed stream: the state as it was before a batch that failed part-way
   * (with the embedded store it is in place before any other request is handled: every read is already settled).
   */
  private async rebuild(runId: string, run: LiveRun): Promise<void> {
    const seq = run.tracker.state.seq;
    await this.store.ingest.flush();
    const PAGE = 10_000;
    const tracker = this.newTracker(runId, run.tracker.state.label);
    for (let after = 0; ;) {
      const page = await this.store.runReads.eventsAfter(runId, after, PAGE);
      for (const e of page) tracker.apply(e.seq, JSON.parse(e.json) as RunEvent);
      if (page.length < PAGE) break;
      after = page[page.length - 1].seq;
    }
    tracker.state.seq = Math.max(seq, tracker.state.seq);
    if (this.live.get(runId) !== run) return;
    run.tracker = tracker;
    this.store.ingest.liveState(runId, tracker.state);
  }

  /** Queues a folded event to the store, which numbers it (numbered() below). */
  private queue(runId: string, event: RunEvent, effects: Effects): void {
    // Only a sent request can have telemetry from the server (a queued one is not indexed: a million queued is no cost).
    if (event.type === 'request.sent') this.byRequestId.set(event.requestId, runId);
    this.store.ingest.push(runId, JSON.stringify(event), effects);
  }

  /**
   * A numbered event of this process: into the run's ring and to the sessions. The ring holds one unbroken
   * run of seqs: when another process numbered the ones between, it starts again here (older ones are read
   * from the store).
   */
  private numbered(runId: string, seq: number, json: string): void {
    const run = this.live.get(runId);
    if (run) {
      if (seq > run.tracker.state.seq) run.tracker.state.seq = seq;
      const last = run.ring[run.ring.length - 1];
      if (last && last.seq + 1 !== seq) {
        run.ring = [];
        run.ringHead = 0;
      }
      run.ring.push({ seq, json });
      if (run.ring.length - run.ringHead > this.ringSize) run.ringHead++;
      // Compacted once an eighth has dropped out (a copy of the ring every ringSize/8 events, 8 moves an
      // event): the dropped events' JSON is held until then. Waiting for a whole ring's worth held up to twice
      // the ring: the dashboard bench's 30,000-request run held 1,250 B per finished request, 919 B now.
      if (run.ringHead > this.ringSize >> 3) {
        run.ring = run.ring.slice(run.ringHead);
        run.ringHead = 0;
      }
    }
    for (const f of this.numberedElsewhere) f(runId, seq);
    for (const l of this.listeners) l.onAppend(runId);
  }

  /**
   * Appends a telemetry event to a run, live or stored: a live run takes it
   * like any event; a stored run that is no longer live (a late flush, a CI
   * job reporting after the fact) gets it at its next seq, and a watchdog
   * stall goes to its stall reports. Returns the seq, or null when no such
   * run exists.
   */
  appendTelemetry(runId: string, event: TelemetryEvent): Promise<number | null> {
    return this.appendTelemetryBatch(runId, [event]);
  }

  /**
   * Like appendTelemetry for several events of one run, with one commit for a stored run (not one per event).
   * A stored run's events are committed when the promise settles.
   */
  async appendTelemetryBatch(runId: string, events: readonly TelemetryEvent[]): Promise<number | null> {
    const live = this.live.get(runId);
    if (live) {
      let seq = live.tracker.state.seq;
      for (const e of events) seq = this.append(runId, telemetryRunEvent(e, live.tracker.state.startedAtMs));
      return seq;
    }
    const stored = await this.store.runReads.get(runId);
    if (!stored) return null;
    const startedAtMs = stored.startedAtMs ?? stored.state?.startedAtMs ?? null;
    let seq = stored.lastSeq;
    const take = (r: string, s: number) => {
      if (r === runId) seq = Math.max(seq, s);
    };
    this.numberedElsewhere.add(take);
    try {
      for (const e of events)
        this.store.ingest.push(runId, JSON.stringify(telemetryRunEvent(e, startedAtMs)), telemetryEffects(e));
      await this.store.ingest.flush();
    } finally {
      this.numberedElsewhere.delete(take);
    }
    return seq;
  }

  /** Told of numbered events of runs that are not live (a stored run's late telemetry). */
  private readonly numberedElsewhere = new Set<(runId: string, seq: number) => void>();

  /**
   * Stops tracking, then tells sessions. The store holds every event once `flushed` settles (at once for the
   * embedded store; during a database outage, when the outage buffer is written).
   */
  close(runId: string): RunState | undefined {
    const run = this.live.get(runId);
    if (!run) return undefined;
    void this.store.ingest.flush().catch(() => undefined);
    this.live.delete(runId);
    this.store.ingest.liveState(runId, null);
    this.store.ingest.announce(runId, run.tracker.state.status);
    for (const rid of [...[...run.tracker.requests.values()].map((r) => r.requestId), ...run.tracker.recentlyEnded()])
      if (this.byRequestId.get(rid) === runId) this.byRequestId.delete(rid);
    this.emitActiveChanged();
    return run.tracker.state;
  }

  /** The run was deleted: sessions drop it. */
  removed(runId: string): void {
    for (const l of this.listeners) l.onRemoved(runId);
  }

  /** Live runs of this process, then those other processes announced (a browser here lists them too). */
  snapshot(): RunState[] {
    const local = [...this.live.values()].map((r) => structuredClone(r.tracker.state));
    const elsewhere = [...this.remoteLive.values()].filter((s) => !this.live.has(s.runId));
    return [...local, ...elsewhere.map((s) => structuredClone(s))];
  }

  /** Runs other processes on a shared database announced as started and not yet as ended. */
  private readonly remoteLive = new Map<string, RunState>();

  /** Last seq of a run (live or stored); null if the run does not exist. */
  async headSeq(runId: string): Promise<number | null> {
    const run = this.live.get(runId);
    const stored = run && this.store.ingest.soleWriter ? null : await this.store.runReads.get(runId);
    if (run) return Math.max(run.tracker.state.seq, stored?.lastSeq ?? 0);
    return stored ? stored.lastSeq : null;
  }

  /**
   * Events with seq > after, up to `limit`: from memory (at once) when the ring holds that seq and what
   * follows, else from the store (committed ones: what another process wrote to a shared database, or what
   * left the ring).
   */
  readAfter(runId: string, after: number, limit: number): StoredEvent[] | Promise<StoredEvent[]> {
    const run = this.live.get(runId);
    if (run) {
      const first = run.ring[run.ringHead];
      if (first && after + 1 >= first.seq) {
        const start = run.ringHead + (after + 1 - first.seq);
        const got = run.ring.slice(start, start + limit);
        // Past the ring's end: another process may have numbered the next ones.
        if (got.length || this.store.ingest.soleWriter) return got;
      } else if (this.store.ingest.soleWriter) {
        if (after >= run.tracker.state.seq) return [];
        // Older than the ring: those are committed once the writer has flushed.
        return this.store.ingest.flush().then(() => this.store.runReads.eventsAfter(runId, after, limit));
      }
    }
    return this.store.runReads.eventsAfter(runId, after, limit);
  }

  /** Events a live run's ring holds, those dropped but not yet compacted away included (its memory; tests). */
  ringHeld(runId: string): number {
    return this.live.get(runId)?.ring.length ?? 0;
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

/** What a process knows of a run another process announced: that it runs (its events come by seq). */
function remoteState(runId: string): RunState {
  return {
    runId,
    status: 'running',
    seq: 0,
    startedAtMs: null,
    label: null,
    counts: emptyCounts(),
    inFlight: 0,
    breaker: { tripped: false, cause: null },
    verdict: null,
  };
}

/** A telemetry event on the run's clock: `t` = ms since the run started (0 before it did). */
function telemetryRunEvent(event: TelemetryEvent, startedAtMs: number | null | undefined): RunEvent {
  return { type: 'telemetry', t: startedAtMs ? event.ts - startedAtMs : 0, event };
}
