/**
 * The dashboard's Prometheus metrics (docs/design.md#metrics), in a registry
 * of its own (never prom-client's global one, so two apps in one process do
 * not share series). What the database holds is read at each scrape, so it is
 * right after a restart and the same from every dashboard on one database;
 * what only this process sees (report requests and their latency, the write
 * queue, store errors) is counted here.
 */
import { CappedRegistry } from './cappedRegistry.ts';
import type { MetricsQueries } from '../store/common/metricsQueries.ts';

/** What the metrics read besides the database. */
export interface MetricsSources {
  queries: MetricsQueries;
  /** Events accepted but not yet written, and since when the oldest waits (epoch ms). */
  writeQueue: () => { events: number; sinceMs: number };
  /** Failed writes of live batches, failed retention sweeps, rows retention removed. */
  failedWrites: () => number;
  retention: () => { failedSweeps: number; rowsPruned: number };
  /** Telemetry events this process took that joined no run (docs/design.md#any-process). */
  unjoinedTelemetry: () => number;
  now?: () => number;
  /** The database is read at most this often (docs/design.md#metrics); default READ_EVERY_MS. */
  readEveryMs?: number;
  /** How long a scrape waits for a read it started before answering what the last read found. */
  waitForReadMs?: number;
}

/**
 * Reading the database's counts costs 0.3-0.8 s at 100,000 distinct pipelines: a scrape reads them at most every
 * 10 s, and waits for a read it started at most 150 ms before answering the last one (its age is a gauge).
 */
export const READ_EVERY_MS = 10_000;
export const WAIT_FOR_READ_MS = 150;

const P = 'stallscope_';

export class FleetMetrics {
  /** Every family is made through it, so each is capped (./seriesCap.ts). */
  readonly families = new CappedRegistry();
  private readonly f = this.families;
  private readonly runs = this.f.grouped({
    name: `${P}runs`,
    help: 'Stored runs by verdict (none while running or without one) and ci_pipeline (none when unset; other: past the largest)',
    labelNames: ['verdict', 'pipeline'],
  });
  /** The stall board's hang rate, per job: stalled / all of a (pipeline, step) is the board's `total.hangRate`. */
  private readonly jobRuns = this.f.grouped({
    name: `${P}job_runs`,
    help: 'Stored runs per CI job (ci_pipeline, ci_step; none when unset) and outcome as the stall board counts it: stalled (any stall evidence), passed, failed',
    labelNames: ['pipeline', 'step', 'outcome'],
  });
  private readonly byStatus = this.f.grouped({
    name: `${P}runs_by_status`,
    help: 'Stored runs by status and source (dashboard, cli, import)',
    labelNames: ['status', 'source'],
  });
  private readonly inProgress = this.f.gauge({
    name: `${P}runs_in_progress`,
    help: 'Runs whose status is running in the database',
  });
  private readonly stalls = this.f.grouped({
    name: `${P}stall_occurrences`,
    help: 'Runs whose stall evidence has this fingerprint (a run counts once, as on the stall board; a run with only a first timeout under its phase-only one), by ci_node (none when unset)',
    labelNames: ['fingerprint', 'phase', 'node'],
  });
  // A gauge, not a counter: deleting a run takes its events with it, and a Prometheus counter must never decrease
  // (rate() reads a drop as a reset). Its deriv() is the ingest rate while no run is deleted.
  private readonly events = this.f.gauge({
    name: `${P}events_stored`,
    help: 'Events stored in the database over all stored runs (falls when runs are deleted)',
  });
  private readonly retained = this.f.grouped({
    name: `${P}runs_retention`,
    help: 'Runs pinned (never pruned) and runs whose request rows and events retention pruned',
    labelNames: ['state'],
  });
  private readonly dbUp = this.f.gauge({
    name: `${P}database_up`,
    help: '1 when this scrape could read the database, else 0 (the database gauges are then absent)',
  });
  private readonly queued = this.f.gauge({
    name: `${P}ingest_queued_events`,
    help: 'Events accepted by this process and not yet written to the database',
  });
  private readonly lag = this.f.gauge({
    name: `${P}ingest_lag_seconds`,
    help: 'How long the oldest event accepted by this process has waited to be written (0 when none waits)',
  });
  private readonly storeErrors = this.f.labelledCounter({
    name: `${P}store_errors_total`,
    help: 'Store operations of this process that failed: write (a batch of live events), retention (a sweep), read (a scrape)',
    labelNames: ['kind'],
  });
  private readonly pruned = this.f.counter({
    name: `${P}retention_pruned_rows_total`,
    help: 'Request rows and events this process pruned',
  });
  private readonly unjoined = this.f.counter({
    name: `${P}telemetry_unjoined_total`,
    help: 'Telemetry events this process took that joined no run (no runId, no request id of a running run)',
  });
  private readonly reportRequests = this.f.labelledCounter({
    name: `${P}report_requests_total`,
    help: 'Reporting requests this process answered (run creation, event batches, telemetry, imports) by route and status',
    labelNames: ['route', 'code'],
  });
  private readonly reportSeconds = this.f.histogram({
    name: `${P}report_request_duration_seconds`,
    help: 'Time this process took to answer a reporting request (accepted to stored in the hub)',
    labelNames: ['route'],
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
  });
  private readonly readAge = this.f.gauge({
    name: `${P}metrics_read_age_seconds`,
    help: 'How old the database read this scrape answers is (it is read at most every 10 s; a slow read is not waited for)',
  });
  private readErrors = 0;
  /** When the last database read ended (epoch ms), and the read under way. */
  private lastReadMs: number | null = null;
  private reading: Promise<void> | null = null;

  constructor(private readonly s: MetricsSources) {}

  /** A reporting request answered (from the app's onResponse hook). */
  observeReport(route: string, code: number, seconds: number): void {
    this.reportRequests.inc({ route, code: String(code) });
    this.reportSeconds.observe({ route }, seconds);
  }

  /** The exposition text, with the database's counts as last read (read now when older than readEveryMs). */
  async render(): Promise<string> {
    await this.freshEnough();
    const q = this.s.writeQueue();
    const now = this.clock();
    this.readAge.set(this.lastReadMs === null ? 0 : Math.max(0, (now - this.lastReadMs) / 1000));
    this.queued.set(q.events);
    this.lag.set(q.events > 0 ? Math.max(0, (now - q.sinceMs) / 1000) : 0);
    const ret = this.s.retention();
    this.storeErrors.set({ kind: 'write' }, this.s.failedWrites());
    this.storeErrors.set({ kind: 'retention' }, ret.failedSweeps);
    this.storeErrors.set({ kind: 'read' }, this.readErrors);
    this.pruned.set(ret.rowsPruned);
    this.unjoined.set(this.s.unjoinedTelemetry());
    return this.families.registry.metrics();
  }

  get contentType(): string {
    return this.families.registry.contentType;
  }

  private clock(): number {
    return (this.s.now ?? Date.now)();
  }

  /**
   * Reads the database when the last read is older than readEveryMs (one read at a time), and waits for it at most
   * waitForReadMs — the first scrape waits for the first read whole.
   */
  private async freshEnough(): Promise<void> {
    const last = this.lastReadMs;
    if (last !== null && this.clock() - last < (this.s.readEveryMs ?? READ_EVERY_MS)) return;
    this.reading ??= this.readDatabase().finally(() => {
      this.lastReadMs = this.clock();
      this.reading = null;
    });
    if (last === null) return this.reading;
    let timer: NodeJS.Timeout | undefined;
    const waited = new Promise<void>(
      (resolve) => (timer = setTimeout(resolve, this.s.waitForReadMs ?? WAIT_FOR_READ_MS)),
    );
    await Promise.race([this.reading, waited]);
    clearTimeout(timer);
  }

  /** Labelled series of the database: replaced whole at each scrape (a deleted run's pipeline goes). */
  private get labelled() {
    return [this.runs, this.jobRuns, this.byStatus, this.stalls, this.retained];
  }

  private async readDatabase(): Promise<void> {
    try {
      const { byVerdict, jobRuns, byStatus, stalls, events, retention } = await this.s.queries.readAll();
      this.runs.replace(
        byVerdict.map((r) => ({ labels: { verdict: r.verdict, pipeline: r.pipeline }, value: r.runs })),
      );
      this.jobRuns.replace(
        jobRuns.map((r) => ({ labels: { pipeline: r.pipeline, step: r.step, outcome: r.outcome }, value: r.runs })),
      );
      this.byStatus.replace(byStatus.map((r) => ({ labels: { status: r.status, source: r.source }, value: r.runs })));
      this.inProgress.set(byStatus.reduce((a, r) => a + (r.status === 'running' ? r.runs : 0), 0));
      this.stalls.replace(
        stalls.map((r) => ({ labels: { fingerprint: r.fingerprint, phase: r.phase, node: r.node }, value: r.runs })),
      );
      this.events.set(events);
      this.retained.replace([
        { labels: { state: 'pinned' }, value: retention.pinned },
        { labels: { state: 'pruned' }, value: retention.pruned },
      ]);
      this.dbUp.set(1);
    } catch {
      // The scrape still answers with what this process knows; the failure is counted, not thrown. Unlabelled
      // series keep their last value (a counter dropping to 0 would read as a restart).
      for (const g of this.labelled) g.clear();
      this.readErrors++;
      this.dbUp.set(0);
    }
  }
}
