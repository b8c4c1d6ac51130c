/**
 * Runs streamed in by `stallscope bench --report-to URL` (a CI job): the CLI
 * creates the run, then posts its engine events in batches. They go through
 * the same hub as the dashboard's own runs, so they are shown live and
 * stored alike. A run whose CLI goes silent for `idleMs` without finishing
 * is recorded as interrupted; so is one the maintainer marks abandoned in
 * the dashboard (its CLI is elsewhere: the dashboard cannot stop it). Events
 * for a run no longer live are refused with a 409 that says why.
 */
import { TimeSlice } from '../../common/timeSlice.ts';
import type { BenchEvent, RunFinished } from '../../../shared/protocol/protocol.ts';
import { rateLabel } from '../../../shared/runInfo/rateLabel.ts';
import { RunEndedError, type Hub } from '../hub/hub.ts';
import { finalizeRun } from './finalize.ts';
import { StallscopeError } from '../../../shared/errors.ts';
import { isEmptyCompletion, withEmptyCompletions } from '../../../shared/metrics/emptyAnswers.ts';
import { checkBenchEvent } from './eventChecks.ts';
import { eventWithNewNames } from '../../../shared/protocol/legacyNames.ts';
import { redactConfig, redactEvent, redactUrl } from './redact.ts';
import type { StoredRunRow } from '../store/common/records.ts';

/**
 * How long a batch of a run several processes write waits for its commit before it is answered anyway (it is in
 * the outage buffer and will be written): the reproduction of a killed backend recovers in 1-3 s.
 */
const SHARED_COMMIT_WAIT_MS = 10_000;

const isRunStarted = (e: unknown) => (e as { type?: unknown } | null)?.type === 'run.started';

const refuse = (i: number, what: string, field: string): never => {
  throw new StallscopeError(
    'API_BAD_REQUEST',
    `events[${i}]: ${what}; the batch was refused whole, nothing was applied`,
    `events.${i}${field ? `.${field}` : ''}`,
  );
};

/**
 * Every event valid, nothing after `run.finished`, and every index and count within what the run declared
 * (`run.started.numRequests`, from an earlier batch or this one) — all checked before anything is applied, so
 * nothing a reporter chooses is allocated, stored or numbered unchecked; else API_BAD_REQUEST naming the first bad
 * field (`events.N.index`; docs/design.md#peer-bounds). `declared` is the run's numRequests, or null before its
 * run.started. A few ms at a time, the event loop free between slices (a batch may hold 100,000 events).
 */
export async function checkBatchInSlices(posted: readonly unknown[], declared: number | null): Promise<BenchEvent[]> {
  const check = batchChecker(declared);
  const events: BenchEvent[] = [];
  const slice = new TimeSlice();
  for (let i = 0; i < posted.length; i++) {
    events.push(check(posted[i], i));
    if (slice.due()) await slice.pause();
  }
  return events;
}

/** Checks a batch's events one by one, in order (what an event may say depends on those before it). */
function batchChecker(declared: number | null): (posted: unknown, i: number) => BenchEvent {
  let numRequests = declared;
  let previous: BenchEvent | null = null;
  return (posted, i) => {
    // An older reporter's names are read under today's (docs/design.md#legacy-names).
    const c = checkBenchEvent(eventWithNewNames(posted));
    if (!c.ok) refuse(i, c.message, c.field);
    const e = (c as { event: BenchEvent }).event;
    if (previous?.type === 'run.finished') refuse(i, `${e.type} after run.finished (the run ends with it)`, 'type');
    if (e.type === 'run.started') {
      if (numRequests !== null) refuse(i, 'a second run.started (the run has declared its requests)', 'type');
      numRequests = e.numRequests;
    }
    checkDeclared(e, i, numRequests);
    previous = e;
    // Secrets in what a reporter sends (a base URL's user:password@) never reach the store (docs/design.md#secrets).
    return redactEvent(e);
  };
}

/** An index or count in `e` against the run's declared number of requests. */
function checkDeclared(e: BenchEvent, i: number, numRequests: number | null): void {
  const index = (e as { index?: number }).index;
  if (index !== undefined) {
    if (numRequests === null) refuse(i, `${e.type} with a request index before run.started`, 'index');
    else if (index >= numRequests)
      refuse(i, `index ${index} is not below the run's ${numRequests} requests (run.started.numRequests)`, 'index');
  }
  if (e.type === 'requests.unsent') {
    // A range of unsent requests: inside the run, and not empty.
    if (numRequests === null) refuse(i, `${e.type} before run.started`, 'from');
    else if (e.to > numRequests)
      refuse(i, `to ${e.to} exceeds the run's ${numRequests} requests (run.started.numRequests)`, 'to');
    if (e.from >= e.to) refuse(i, `from ${e.from} is not below to ${e.to}`, 'from');
  }
  if (e.type === 'accuracy.started' && numRequests !== null && e.total > numRequests)
    refuse(i, `total ${e.total} exceeds the run's ${numRequests} requests`, 'total');
  if (e.type === 'run.stopped') {
    const bad = e.stoppedBy.requests.findIndex((r) => numRequests === null || r.index >= numRequests);
    if (bad >= 0)
      refuse(
        i,
        `stop evidence index ${e.stoppedBy.requests[bad].index} is not below the run's ${numRequests ?? 0} requests`,
        `stoppedBy.requests.${bad}.index`,
      );
  }
}

/** The status message of a reported run marked abandoned in the dashboard. */
const ABANDONED_MESSAGE =
  'marked abandoned in the dashboard: its CLI was not stopped, and events it still sends are refused';

export interface ExternalRunInfo {
  runId: string;
  config?: Record<string, unknown>;
  label?: string | null;
  metadata?: Record<string, string>;
}

export class ExternalRuns {
  private readonly idle = new Map<string, NodeJS.Timeout>();
  /** Requests counted completed with nothing streamed back, per live reported run. */
  private readonly emptyAnswers = new Map<string, number>();

  constructor(
    private readonly hub: Hub,
    private readonly idleMs = 10 * 60_000,
  ) {}

  async create(info: ExternalRunInfo, now = Date.now()): Promise<string> {
    const c = info.config ?? {};
    const store = this.hub.store;
    this.needRoom(1);
    if (await store.runReads.exists(info.runId))
      throw new StallscopeError('API_CONFLICT', `run ${info.runId} already exists`, 'runId');
    const str = (v: unknown) => (typeof v === 'string' ? v : null);
    const int = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? Math.trunc(v) : null);
    const dataset = (c.dataset as { name?: unknown } | undefined)?.name;
    await store.runWrites.insertRun({
      id: info.runId,
      source: 'cli',
      status: 'running',
      label: info.label ?? str(c.label),
      model: str(c.model),
      target: redactUrl(str(c.baseUrl)),
      dataset: str(dataset),
      numPrompts: int(c.numPrompts),
      maxConcurrency: int(c.maxConcurrency),
      requestRate: rateLabel(c.requestRate, c.rampUp),
      failFast: c.failFast === true,
      createdAtMs: now,
      config: redactConfig(c),
      metadata: info.metadata ?? (c.metadata as Record<string, string> | undefined) ?? {},
    });
    this.hub.open(info.runId, info.label ?? str(c.label));
    this.hub.append(info.runId, {
      type: 'run.status',
      t: 0,
      status: 'running',
      message: 'reported by stallscope bench --report-to',
    });
    this.touch(info.runId);
    await store.ingest.settled();
    return info.runId;
  }

  /**
   * 503 while the store's outage buffer cannot take `events` more (the reporter keeps them and retries); 413 for a
   * batch bigger than the buffer itself, which no retry would ever fit.
   */
  private needRoom(events: number): void {
    const { capacity } = this.hub.store.ingest.health();
    if (capacity > 0 && events > capacity)
      throw new StallscopeError(
        'API_PAYLOAD_TOO_LARGE',
        `${events} events in one batch, more than the outage buffer's ${capacity}: send them in smaller batches`,
      );
    if (!this.hub.store.ingest.hasRoom(events))
      throw new StallscopeError(
        'STORE_UNAVAILABLE',
        'the database is unreachable and the outage buffer is full; retry later (nothing of this batch was applied)',
      );
  }

  /**
   * Appends a batch; returns the last seq. The batch's `run.finished` ends the
   * run. Every event is checked against the protocol schema before any is
   * applied: a batch with one bad event is refused whole (400 naming its index
   * and field) and changes nothing. A run's batches are applied one at a time.
   */
  append(runId: string, posted: readonly unknown[]): Promise<number> {
    return this.serially(runId, () => this.appendNow(runId, posted));
  }

  private async appendNow(runId: string, posted: readonly unknown[]): Promise<number> {
    // Any process takes any batch of a run (docs/design.md#team-dashboard): what other processes numbered
    // since this one last folded the run is folded first.
    const caughtUp = this.isReported(runId) ? await this.hub.catchUp(runId) : await this.adoptOrRefuse(runId);
    if (!caughtUp) this.behind(runId);
    this.needRoom(posted.length);
    const state = this.hub.tracker(runId)?.state;
    // Another process took the run's start and holds it, not yet committed (its outage buffer): this batch's
    // indexes cannot be checked yet. Retryable, unlike a reporter that never declared its requests.
    if (state?.startedAtMs == null && this.hub.isShared(runId) && !posted.some(isRunStarted))
      throw new StallscopeError(
        'STORE_UNAVAILABLE',
        `run ${runId}: its run.started is not in the database yet (another dashboard process holds it); retry (nothing of this batch was applied)`,
      );
    const events = await checkBatchInSlices(posted, state?.startedAtMs != null ? state.counts.total : null);
    let seq: number;
    try {
      seq = events.length ? await this.hub.appendBatch(runId, events) : ((await this.hub.headSeq(runId)) ?? 0);
    } catch (e) {
      if (!(e instanceof RunEndedError)) throw e;
      this.refuseNotLive(await this.hub.store.runReads.get(runId), runId);
    }
    let finished: RunFinished | null = null;
    for (const e of events) {
      if (e.type === 'request.completed' && isEmptyCompletion(e.outcome))
        this.emptyAnswers.set(runId, (this.emptyAnswers.get(runId) ?? 0) + 1);
      if (e.type === 'run.finished') finished = e;
    }
    if (finished) {
      // A reporter (an older CLI) may count 200s that were not event streams as completed: not a pass here.
      const s = finished.summary;
      const judged = withEmptyCompletions(s.verdict, s.verdictReasons, this.emptyAnswers.get(runId) ?? 0);
      this.stop(runId);
      this.ended(runId, 'finished');
      // Not awaited: while the database is away the run's end waits in the outage buffer like its events.
      void finalizeRun(this.hub, runId, {
        status: 'finished',
        summary: { ...s, verdict: judged.verdict, verdictReasons: judged.reasons },
      });
    } else this.touch(runId);
    // Acknowledged once written (another dashboard on the same database then sees it), or once buffered
    // while the database is away (docs/design.md#outage-buffer) — for a run other processes write too, only
    // once committed or after SHARED_COMMIT_WAIT_MS: the next batch may reach a process that can see only
    // what is committed.
    await this.hub.store.ingest.settled();
    if (this.hub.isShared(runId)) await this.hub.store.ingest.committed(SHARED_COMMIT_WAIT_MS);
    return Math.max(seq, this.hub.tracker(runId)?.state.seq ?? 0);
  }

  /** Runs `work` after the run's earlier batches (and abandon) are done: one at a time per run. */
  private serially<T>(runId: string, work: () => Promise<T>): Promise<T> {
    const before = this.queues.get(runId) ?? Promise.resolve();
    const mine = before.then(work, work);
    const tail = mine.then(
      () => undefined,
      () => undefined,
    );
    this.queues.set(runId, tail);
    void tail.then(() => {
      if (this.queues.get(runId) === tail) this.queues.delete(runId);
    });
    return mine;
  }

  private readonly queues = new Map<string, Promise<void>>();

  /**
   * A running run created by a reporter through another dashboard process on the same database (several behind a
   * load balancer, each request to any of them) takes its events here too, from its first batch on: it becomes
   * live in this process, its tracker folding the run's committed stream first. Anything else is refused.
   */
  private async adoptOrRefuse(runId: string): Promise<boolean> {
    const stored = await this.hub.store.runReads.get(runId);
    if (this.isReported(runId)) return this.hub.catchUp(runId);
    const ended = this.recentlyEnded.get(runId);
    // Ended here, its row perhaps not written yet (it waits for the database like the events before it).
    if (ended && stored) this.refuseNotLive(stored, runId, ended);
    if (this.hub.store.ingest.soleWriter || !stored || stored.source !== 'cli' || stored.status !== 'running')
      this.refuseNotLive(stored, runId);
    const caughtUp = this.hub.isActive(runId)
      ? await this.hub.catchUp(runId)
      : await this.hub.adopt(runId, stored.label);
    if (caughtUp) this.touch(runId);
    return caughtUp;
  }

  /**
   * 503: the run's earlier events, numbered through another dashboard process, cannot be read now, and folding
   * this batch without them would store wrong rows; nothing was applied (the reporter posts it again).
   */
  private behind(runId: string): never {
    throw new StallscopeError(
      'STORE_UNAVAILABLE',
      `run ${runId} was fed through another dashboard process and the database cannot be read to catch up; retry (nothing of this batch was applied)`,
    );
  }

  /** Whether `runId` is a live run reported by a CLI (not one the dashboard runs itself). */
  isReported(runId: string): boolean {
    return this.idle.has(runId) && this.hub.isActive(runId);
  }

  /**
   * Marks a live reported run abandoned: recorded as interrupted by the dashboard (its CLI, elsewhere, is not
   * stopped, and what it sends later is refused), so it can be deleted. A run live on another dashboard process
   * of the same database is taken here and ended for every process. False when it is not a running reported run.
   */
  abandon(runId: string): Promise<boolean> {
    return this.serially(runId, async () => {
      if (!this.isReported(runId)) {
        const stored = this.hub.store.ingest.soleWriter ? null : await this.hub.store.runReads.get(runId);
        if (stored?.source !== 'cli' || stored.status !== 'running' || this.hub.isActive(runId)) return false;
        if (!(await this.hub.adopt(runId, stored.label))) this.behind(runId);
      }
      this.stop(runId);
      this.ended(runId, 'abandoned');
      // Not awaited, as a run's end: while the database is away it waits in the outage buffer.
      void finalizeRun(this.hub, runId, {
        status: 'interrupted',
        interruptCause: 'dashboard',
        message: ABANDONED_MESSAGE,
      });
      return true;
    });
  }

  /** Remembers how a run ended here (bounded), so a batch racing its row's write is refused, not adopted. */
  private ended(runId: string, how: 'finished' | 'abandoned'): void {
    if (this.recentlyEnded.size >= 1024) this.recentlyEnded.delete(this.recentlyEnded.keys().next().value!);
    this.recentlyEnded.set(runId, how);
  }

  private readonly recentlyEnded = new Map<string, 'finished' | 'abandoned'>();

  /** 404 for a run that does not exist, else a 409 saying how the run ended (abandoned, gone silent, finished). */
  private refuseNotLive(stored: StoredRunRow | null, runId: string, endedHere?: 'finished' | 'abandoned'): never {
    if (!stored && !endedHere) throw new StallscopeError('API_NOT_FOUND', `no reported run ${runId}`, 'runId');
    const how =
      endedHere === 'abandoned' || (stored?.status === 'interrupted' && stored.state?.interruptCause === 'dashboard')
        ? 'it was marked abandoned in the dashboard'
        : endedHere === 'finished'
          ? 'it has ended (finished)'
          : stored!.status === 'running'
            ? 'it is not a run reported with --report-to'
            : `it has ended (${stored!.status})`;
    throw new StallscopeError(
      'API_CONFLICT',
      `run ${runId} takes no more events: ${how}; the batch was refused whole, nothing was applied`,
      'runId',
    );
  }

  private touch(runId: string): void {
    clearTimeout(this.idle.get(runId));
    const t = setTimeout(() => void this.silent(runId), this.idleMs);
    t.unref();
    this.idle.set(runId, t);
  }

  /**
   * No batch reached this process for `idleMs`. Another process of the same database may have taken them (a
   * load balancer): a run it ended is let go; a run it still feeds waits again; only a run nobody fed ends here,
   * interrupted.
   */
  private async silent(runId: string): Promise<void> {
    if (!this.hub.isActive(runId)) {
      this.stop(runId);
      return;
    }
    const before = this.hub.tracker(runId)?.state.seq ?? 0;
    if (!this.hub.store.ingest.soleWriter) {
      const stored = await this.hub.store.runReads.get(runId).catch(() => null);
      if (stored && stored.status !== 'running') {
        this.stop(runId);
        this.hub.letGo(runId);
        return;
      }
      if (stored && stored.lastSeq > before) {
        await this.hub.catchUp(runId).catch(() => undefined);
        this.touch(runId);
        return;
      }
    }
    this.idle.delete(runId);
    void finalizeRun(this.hub, runId, { status: 'interrupted', message: 'the reporting CLI went silent' });
  }

  private stop(runId: string): void {
    clearTimeout(this.idle.get(runId));
    this.idle.delete(runId);
    this.emptyAnswers.delete(runId);
  }

  /** Records every live reported run as interrupted (dashboard shutdown). */
  async shutdown(): Promise<void> {
    const ends: Promise<void>[] = [];
    for (const id of [...this.idle.keys()]) {
      this.stop(id);
      ends.push(finalizeRun(this.hub, id, { status: 'interrupted', message: 'the dashboard stopped' }));
    }
    await Promise.all(ends);
  }
}
