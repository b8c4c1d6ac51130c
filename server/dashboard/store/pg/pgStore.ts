/**
 * The team store: PostgreSQL (docs/design.md#team-dashboard). Several
 * dashboard processes may serve one database: the database numbers each
 * run's events (pgWriter.ts), tells the other processes what was written
 * (LISTEN/NOTIFY, pgListener.ts) and knows which process owns a running run
 * (an advisory lock each process holds while it lives), so a restarting
 * dashboard marks only the runs of processes that are gone as interrupted.
 * While the database is away, reports are buffered (#outage-buffer).
 */
import pg from 'pg';
import { randomInt } from 'node:crypto';
import { Kysely, PostgresDialect } from 'kysely';
import type { RequestRow } from '../../../../shared/protocol/apiSchemas.ts';
import { KyselyTokenStore, type TokenStore } from '../tokens.ts';
import { KyselyRetentionStore, type RetentionStore } from '../retention.ts';
import { KyselyMetricsQueries, type MetricsQueries } from '../metricsQueries.ts';
import { RequestPages } from '../requestPages.ts';
import type { RunEvent, RunState } from '../../../../shared/protocol/protocol.ts';
import type { StoreHealth } from '../../../../shared/protocol/storeHealth.ts';
import { StallscopeError } from '../../../../shared/errors.ts';
import { checkDbUrl, redactDbUrl } from '../dbUrl.ts';
import type {
  BoardFilter,
  QueueStats,
  DashboardStore,
  NewRun,
  RemoteChange,
  RowSlice,
  RunFilter,
  RunUpdate,
  StallRow,
  StoredEvent,
} from '../storeApi.ts';
import type { Effects } from '../writer.ts';
import type { StallscopeDb } from '../schema.ts';
import { migratePg } from './pgMigrations.ts';
import { isConnectionError, PgWriter } from './pgWriter.ts';
import { PgListener, OWNER_LOCK_CLASS } from './pgListener.ts';
import * as reads from './pgReads.ts';
import { insertRunSql, updateSql } from './pgWrites.ts';

export interface PgStoreOptions {
  url: string;
  flushIntervalMs?: number;
  maxBatch?: number;
  bufferEvents?: number;
  /** Connections in the pool. */
  poolSize?: number;
}

/** BIGINT columns (ms timestamps, seqs, counts) as numbers: every value stallscope stores fits a double exactly. */
const typeParsers = new pg.TypeOverrides();
typeParsers.setTypeParser(pg.types.builtins.INT8, (v: string) => Number(v));
const types: pg.CustomTypesConfig = typeParsers;

export async function openPgStore(o: PgStoreOptions): Promise<PgStore> {
  checkDbUrl(o.url);
  const pool = new pg.Pool({ connectionString: o.url, max: o.poolSize ?? 8, types, connectionTimeoutMillis: 5000 });
  // An idle connection the server closed (a restart) is an error event on the pool: the next query reconnects.
  pool.on('error', () => undefined);
  let client: pg.PoolClient | undefined;
  try {
    client = await pool.connect();
    await migratePg(client);
  } catch (e) {
    client?.release();
    await pool.end().catch(() => undefined);
    throw new StallscopeError('STORE_UNREADABLE', `${redactDbUrl(o.url)}: ${(e as Error).message}`);
  }
  client.release();
  const store = new PgStore(pool, o);
  await store.listener.start();
  return store;
}

export class PgStore implements DashboardStore {
  readonly kind = 'postgres' as const;
  readonly soleWriter = false;
  readonly instance = randomInt(1, 2 ** 31 - 1);
  readonly kysely: Kysely<StallscopeDb>;
  readonly tokens: TokenStore;
  readonly retention: RetentionStore;
  readonly metrics: MetricsQueries;
  private readonly pages: RequestPages;
  readonly writer: PgWriter;
  readonly listener: PgListener;
  private stateOf: (runId: string) => RunState | undefined = () => undefined;
  private numbered: (runId: string, seq: number, json: string) => void = () => undefined;
  private remote: (c: RemoteChange) => void = () => undefined;
  private downSinceMs: number | null = null;
  private lastError: string | null = null;

  constructor(
    readonly pool: pg.Pool,
    o: PgStoreOptions,
  ) {
    this.kysely = new Kysely<StallscopeDb>({ dialect: new PostgresDialect({ pool }) });
    this.tokens = new KyselyTokenStore(this.kysely);
    this.retention = new KyselyRetentionStore(this.kysely);
    this.metrics = new KyselyMetricsQueries(this.kysely);
    this.pages = new RequestPages(this.kysely);
    this.writer = new PgWriter(pool, {
      intervalMs: o.flushIntervalMs,
      maxBatch: o.maxBatch,
      capacity: o.bufferEvents,
      stateOf: (id) => this.stateOf(id),
      numbered: (r, s, j) => this.numbered(r, s, j),
      instance: this.instance,
      onError: (e) =>
        process.stderr.write(`stallscope: a batch of live events could not be stored: ${e.stack ?? e.message}\n`),
      onConnection: (up, e) => this.connection(up, e),
    });
    this.listener = new PgListener(o.url, this.instance, types, (c) => this.remote(c));
  }

  private healthChanged: () => void = () => undefined;
  onHealthChange(fn: () => void): void {
    this.healthChanged = fn;
  }

  private connection(up: boolean, e: Error | null): void {
    this.downSinceMs = up ? null : Date.now();
    this.lastError = up ? null : (e?.message.split('\n')[0] ?? 'unreachable');
    this.healthChanged();
    process.stderr.write(
      up
        ? 'stallscope: the database answers again; the buffered reports are being written\n'
        : `stallscope: the database is unreachable (${this.lastError}); reports are buffered (up to ${this.writer.capacity} events) and retried\n`,
    );
  }

  /** One query through the pool; a connection failure becomes STORE_UNAVAILABLE (503: retry later). */
  readonly q: reads.Query = async <T>(text: string, params?: unknown[]): Promise<T[]> => {
    try {
      return (await this.pool.query(text, params)).rows as T[];
    } catch (e) {
      if (isConnectionError(e)) throw new StallscopeError('STORE_UNAVAILABLE', (e as Error).message.split('\n')[0]);
      throw e;
    }
  };

  /** A transaction on one pooled connection. */
  private async tx(fn: (c: pg.ClientBase) => Promise<void>): Promise<void> {
    let c: pg.PoolClient;
    try {
      c = await this.pool.connect();
    } catch (e) {
      throw new StallscopeError('STORE_UNAVAILABLE', (e as Error).message.split('\n')[0]);
    }
    try {
      await c.query('BEGIN');
      await fn(c);
      await c.query('COMMIT');
      c.release();
    } catch (e) {
      await c.query('ROLLBACK').catch(() => undefined);
      c.release(isConnectionError(e) ? (e as Error) : undefined);
      if (isConnectionError(e)) throw new StallscopeError('STORE_UNAVAILABLE', (e as Error).message.split('\n')[0]);
      throw e;
    }
  }

  setStateSource(fn: (runId: string) => RunState | undefined): void {
    this.stateOf = fn;
  }
  onNumbered(fn: (runId: string, seq: number, json: string) => void): void {
    this.numbered = fn;
  }
  onRemote(fn: (c: RemoteChange) => void): void {
    this.remote = fn;
  }
  push(runId: string, json: string, effects: Effects): void {
    this.writer.push(runId, json, effects);
  }
  flush(): Promise<void> {
    return this.writer.drain();
  }
  settled(): Promise<void> {
    return this.writer.written();
  }
  hasRoom(events: number): boolean {
    return this.writer.pendingCount + events <= this.writer.capacity;
  }
  queueStats(): QueueStats {
    return {
      events: this.writer.pendingCount,
      sinceMs: this.writer.pendingSinceMs,
      failedBatches: this.writer.stats.failedBatches,
    };
  }

  health(): StoreHealth {
    return {
      database: 'postgres',
      connected: !this.writer.down,
      buffered: this.writer.pendingCount,
      capacity: this.writer.capacity,
      downSinceMs: this.downSinceMs,
      lastError: this.lastError,
    };
  }
  announce(runId: string, status: string): void {
    // An end is announced with the run's final update (same transaction); a start once its row exists.
    if (status === 'running') this.listener.notify({ k: 'runs', r: runId, st: status }, this.pool);
  }

  async insertRun(n: NewRun): Promise<void> {
    await this.tx((c) => insertRunSql(c, n, this.instance));
  }
  async exists(id: string): Promise<boolean> {
    return (await this.q('SELECT 1 FROM runs WHERE id = $1', [id])).length > 0;
  }
  update(id: string, f: RunUpdate): Promise<void> {
    // After the events queued before it (the final state follows the last event), in the writer's order.
    return this.writer.enqueue(async (c) => {
      await updateSql(c, id, f);
      if (f.status && f.status !== 'running')
        await c.query(`SELECT pg_notify('stallscope', $1)`, [
          JSON.stringify({ i: this.instance, k: 'runs', r: id, st: f.status }),
        ]);
    });
  }
  async writeResultPart(id: string, part: number, text: string): Promise<void> {
    await this.q(
      `INSERT INTO run_results (run_id, part, text) VALUES ($1,$2,$3)
       ON CONFLICT (run_id, part) DO UPDATE SET text = excluded.text`,
      [id, part, text],
    );
  }
  list(f: RunFilter) {
    return reads.listRuns(this.q, f);
  }
  get(id: string) {
    return reads.getRun(this.q, id);
  }
  result(id: string) {
    return reads.runResult(this.q, id);
  }
  stallReports(id: string) {
    return reads.stallReports(this.q, id);
  }
  async requests(id: string, offset: number, limit: number, status?: string) {
    const { total, json } = await this.pages.page(id, { offset, limit, status });
    return { total, requests: json.map((s) => JSON.parse(s) as RequestRow) };
  }
  requestsJson(id: string, offset: number, limit: number, status?: string) {
    return this.pages.page(id, { offset, limit, status });
  }
  eventsAfter(id: string, after: number, limit: number): Promise<StoredEvent[]> {
    return reads.eventsAfter(this.q, id, after, limit);
  }
  async delete(id: string): Promise<boolean> {
    return (await this.q('DELETE FROM runs WHERE id = $1 RETURNING id', [id])).length > 0;
  }
  boardRuns(f: BoardFilter) {
    return reads.boardRuns(this.q, f);
  }

  async insertWhole(n: NewRun, f: RunUpdate): Promise<void> {
    await this.tx(async (c) => {
      await insertRunSql(c, n, this.instance);
      await updateSql(c, n.id, f);
    });
  }
  async writeRows(runId: string, rows: RowSlice): Promise<void> {
    await this.q(
      `INSERT INTO requests (run_id, idx, row_json, status)
       SELECT $1, * FROM unnest($2::int[], $3::text[], $4::text[])
       ON CONFLICT (run_id, idx) DO UPDATE SET row_json = excluded.row_json, status = excluded.status`,
      [runId, rows.index, rows.json, rows.status],
    );
  }
  async writeEvents(runId: string, events: readonly StoredEvent[]): Promise<void> {
    if (!events.length) return;
    await this.tx(async (c) => {
      await c.query(
        `INSERT INTO events (run_id, seq, json) SELECT $1, * FROM unnest($2::bigint[], $3::text[])
         ON CONFLICT DO NOTHING`,
        [runId, events.map((e) => e.seq), events.map((e) => e.json)],
      );
      await c.query('UPDATE runs SET last_seq = GREATEST(last_seq, $2) WHERE id = $1', [
        runId,
        events[events.length - 1].seq,
      ]);
    });
  }
  async writeStallRows(runId: string, rows: readonly StallRow[]): Promise<void> {
    await this.tx(async (c) => {
      for (const r of rows)
        await c.query(
          `INSERT INTO stall_reports (run_id, worker_id, op_id, seq, phase, report_json, recovered_json, fingerprint,
            fingerprint_json) VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9) ON CONFLICT DO NOTHING`,
          [runId, r.workerId, r.opId, r.seq, r.phase, r.reportJson, r.recoveredJson, r.fingerprint, r.fingerprintJson],
        );
    });
  }
  stallRows(runId: string): Promise<StallRow[]> {
    return reads.stallRows(this.q, runId);
  }
  async allRunIds(): Promise<string[]> {
    return (await this.q<{ id: string }>('SELECT id FROM runs ORDER BY ord')).map((r) => r.id);
  }

  /** Running runs whose owner process is gone (its advisory lock is free) become interrupted. */
  async recoverInterrupted(now: number): Promise<string[]> {
    const running = await reads.runningByOwner(this.q);
    const owners = new Map<number | null, boolean>();
    const ids: string[] = [];
    for (const r of running) {
      if (r.owner === this.instance) continue;
      if (!owners.has(r.owner)) owners.set(r.owner, r.owner === null || !(await this.ownerAlive(r.owner)));
      if (!owners.get(r.owner)) continue;
      await this.tx((c) => interruptRun(c, r.id, now));
      ids.push(r.id);
    }
    return ids;
  }

  /** Whether the process `owner` still holds its lock (taking it means it is free, and it is given back). */
  private async ownerAlive(owner: number): Promise<boolean> {
    const [r] = await this.q<{ got: boolean }>('SELECT pg_try_advisory_lock($1, $2) AS got', [OWNER_LOCK_CLASS, owner]);
    if (r.got) await this.q('SELECT pg_advisory_unlock($1, $2)', [OWNER_LOCK_CLASS, owner]);
    return !r.got;
  }

  async close(): Promise<void> {
    await this.writer.close();
    await this.listener.stop();
    await this.kysely.destroy().catch(() => undefined); // ends the pool too
  }
}

async function interruptRun(c: pg.ClientBase, id: string, now: number): Promise<void> {
  const r = await c.query<{ last_seq: number; state_json: string | null }>(
    'UPDATE runs SET last_seq = last_seq + 1 WHERE id = $1 RETURNING last_seq, state_json',
    [id],
  );
  const seq = r.rows[0].last_seq;
  const prev = r.rows[0].state_json ? (JSON.parse(r.rows[0].state_json) as RunState) : null;
  const ev: RunEvent = {
    type: 'run.status',
    t: 0,
    status: 'interrupted',
    message: 'the dashboard stopped while this run was running',
  };
  await c.query('INSERT INTO events (run_id, seq, json) VALUES ($1,$2,$3) ON CONFLICT DO NOTHING', [
    id,
    seq,
    JSON.stringify(ev),
  ]);
  await c.query('DELETE FROM run_results WHERE run_id = $1 AND (SELECT result_parts FROM runs WHERE id = $1) IS NULL', [
    id,
  ]);
  const state = prev
    ? { ...prev, status: 'interrupted' as const, seq, inFlight: 0, verdict: prev.verdict ?? 'interrupted' }
    : undefined;
  await updateSql(c, id, {
    status: 'interrupted',
    verdict: state?.verdict ?? 'interrupted',
    finishedAtMs: now,
    state,
  });
}
