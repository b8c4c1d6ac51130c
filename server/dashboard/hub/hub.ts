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
import { TimeSlice } from '../../common/timeSlice.ts';
import type { RunEvent, RunState } from '../../../shared/protocol/protocol.ts';
import type { TelemetryEvent } from '../../../shared/protocol/telemetry.ts';
import type { DashboardStore } from '../store/common/storeApi.ts';
import type { RemoteChange, StoredEvent } from '../store/common/records.ts';
import { RunTracker, telemetryEffects } from './runTracker.ts';
import { FoldedSeqs } from './foldedSeqs.ts';
import { isStoreUnavailable } from '../store/common/connectionError.ts';
import { emptyCounts } from '../../../shared/requests/outcomes.ts';
import type { Effects } from '../store/common/effects.ts';

export type { StoredEvent } from '../store/common/records.ts';

/** A run ended while a batch of it was being folded (the caller answers as for any ended run). */
export class RunEndedError extends Error {
  constructor(readonly runId: string) {
    super(`run ${runId} ended while its batch was being applied`);
  }
}

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
  /** Which numbered events the tracker has folded (several processes may number the run's events). */
  folded: FoldedSeqs;
  /**
   * Whether another process has written events of the run (folded from the database, announced, or the run was
   * adopted): then, with the database unreadable, this process cannot know what it has not folded.
   */
  shared: boolean;
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
    this.live.set(runId, { tracker, folded: new FoldedSeqs(), shared: false, ring: [], ringHead: 0 });
    this.store.ingest.liveState(runId, tracker.state);
    this.store.ingest.announce(runId, 'running');
    this.emitActiveChanged();
    return tracker;
  }

  /**
   * Starts tracking a running run another process created or holds (a shared database behind a load balancer):
   * its tracker folds the run's committed stream first, so the requests, counts and breaker it folds next are
   * the run's, not only what reached this process.
   */
  async adopt(runId: string, label: string | null): Promise<boolean> {
    this.open(runId, label);
    this.live.get(runId)!.shared = true;
    const caughtUp = await this.catchUp(runId);
    if (!caughtUp) this.letGo(runId); // not taken: the next batch adopts it afresh
    return caughtUp;
  }

  /**
   * Folds into a live run's tracker the events other processes numbered since it last folded (read from the
   * database), before this process folds the next batch of the run: a request queued through one process and
   * ended through another gets one row with both times. Nothing to do when this process is the only writer.
   * The caller serialises a run's batches (a reporter posts its next batch once this one is acknowledged, so
   * everything before it is committed). False when the database cannot be read and this process may be behind.
   */
  async catchUp(runId: string): Promise<boolean> {
    const run = this.live.get(runId);
    if (!run || this.store.ingest.soleWriter) return true;
    const PAGE = 5000;
    for (;;) {
      let page: StoredEvent[];
      try {
        page = await this.store.runReads.eventsAfter(runId, run.folded.through, PAGE);
      } catch (e) {
        if (!isStoreUnavailable(e)) throw e;
        // The database is away. A run only this process has written is folded whole (no other process can number
        // anything while the database is away): its batch goes to the outage buffer. A run others wrote too may
        // hold events this process has not folded (a lost NOTIFY says nothing): the caller refuses the batch
        // rather than fold it on a partial state.
        return !run.shared && run.tracker.state.startedAtMs !== null;
      }
      if (this.live.get(runId) !== run) return true;
      for (const e of page) {
        if (!run.folded.take(e.seq)) continue;
        run.shared = true;
        const event = JSON.parse(e.json) as RunEvent;
        run.tracker.fold(event);
        if (event.type === 'request.sent') this.byRequestId.set(event.requestId, runId);
        if (e.seq > run.tracker.state.seq) run.tracker.state.seq = e.seq;
      }
      if (page.length < PAGE) return true;
    }
  }

  /**
   * Another process wrote to the shared database: sessions read what is new from the store. A run that
   * process ended is no longer live here either (this process took some of its events: it ends nothing).
   */
  private remote(c: RemoteChange): void {
    if (c.kind === 'events') {
      const run = this.live.get(c.runId);
      if (run) run.shared = true;
      for (const l of this.listeners) l.onAppend(c.runId);
      return;
    }
    if (c.status !== 'running') return this.letGo(c.runId);
    if (!this.live.has(c.runId)) this.remoteLive.set(c.runId, remoteState(c.runId));
    this.emitActiveChanged();
  }

  /**
   * Another process ended a run this one held too: it is no longer live here, and this process writes nothing
   * of its end (the process that ended it did).
   */
  letGo(runId: string): void {
    const run = this.live.get(runId);
    this.live.delete(runId);
    this.store.ingest.liveState(runId, null);
    this.remoteLive.delete(runId);
    if (run) this.forgetRequestIds(runId, run);
    this.emitActiveChanged();
  }

  /** Drops a run that is no longer live here from the request-id index (its in-flight and recently ended ids). */
  private forgetRequestIds(runId: string, run: LiveRun): void {
    for (const rid of [...[...run.tracker.requests.values()].map((r) => r.requestId), ...run.tracker.recentlyEnded()])
      if (this.byRequestId.get(rid) === runId) this.byRequestId.delete(rid);
  }

  private newTracker(runId: string, label: string | null): RunTracker {
    const tracker = new RunTracker(runId, label);
    tracker.onForget = (rid) => {
      if (this.byRequestId.get(rid) === runId) this.byRequestId.delete(rid);
    };
    return tracker;
  }

  /** Whether another process has written events of this live run (docs/design.md#any-process). */
  isShared(runId: string): boolean {
    return this.live.get(runId)?.shared ?? false;
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
   * A large batch is folded and queued in slices of a few ms, the event loop
   * free between them (as the ingest endpoint works through a large body).
   */
  async appendBatch(runId: string, events: readonly RunEvent[]): Promise<number> {
    const run = this.live.get(runId);
    if (!run) throw new Error(`run ${runId} is not live`);
    const effects: Effects[] = [];
    const slice = new TimeSlice();
    try {
      for (const event of events) {
        effects.push(run.tracker.fold(event));
        // A large batch (up to 100,000 events) is folded a few ms at a time, the event loop free between.
        if (slice.due()) await slice.pause();
      }
    } catch (e) {
      void this.rebuild(runId, run);
      throw e;
    }
    // Ended meanwhile (abandoned, or by another process): nothing of the batch was queued.
    if (this.live.get(runId) !== run) throw new RunEndedError(runId);
    for (let i = 0; i < events.length; i++) {
      this.queue(runId, events[i], effects[i]);
      if (slice.due()) await slice.pause();
    }
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
      run.folded.ownNumbered(seq);
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
    this.forgetRequestIds(runId, run);
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

  /**
   * Runs running in the database but not live here (several dashboards on one database: another process holds
   * them), for telemetry that names their requests; read at most once a second. Empty for the only writer.
   */
  async runningElsewhere(): Promise<string[]> {
    if (this.store.ingest.soleWriter) return [];
    const now = performance.now();
    if (!this.running || now - this.running.at > 1000) {
      const ids = await this.store.runReads.runningIds();
      this.running = { at: performance.now(), ids };
    }
    return this.running.ids.filter((id) => !this.live.has(id));
  }

  private running: { at: number; ids: string[] } | null = null;

  /** Telemetry events that joined no run (no `runId`, no request id of a running run): counted, never silent. */
  readonly unjoined = { events: 0, lastAtMs: 0 };

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
