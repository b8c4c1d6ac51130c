/**
 * The team store: PostgreSQL (docs/design.md#team-dashboard). Several
 * dashboard processes may serve one database: the database numbers each
 * run's events (pgWriter.ts), tells the other processes what was written
 * (LISTEN/NOTIFY, pgListener.ts) and knows which process owns a running run
 * (an advisory lock each process holds while it lives), so a restarting
 * dashboard marks only the runs of processes that are gone as interrupted.
 * While the database is away, reports are buffered (#outage-buffer). Its
 * roles (common/storeApi.ts) are the small classes beside it.
 */
import pg from 'pg';
import { randomInt } from 'node:crypto';
import { Kysely, PostgresDialect } from 'kysely';
import { StallscopeError } from '../../../../shared/errors.ts';
import { IngestFeed } from '../common/ingestFeed.ts';
import { KyselyMetricsQueries, MAX_GROUPS } from '../common/metricsQueries.ts';
import { RequestPages } from '../common/requestPages.ts';
import { KyselyRetentionStore } from '../common/retention.ts';
import type { StallscopeDb } from '../common/schema.ts';
import type { DashboardStore } from '../common/storeApi.ts';
import { KyselyTokenStore } from '../common/tokens.ts';
import { checkDbUrl, redactDbUrl } from './dbUrl.ts';
import { PgAdmin } from './pgAdmin.ts';
import { PgIngest } from './pgIngest.ts';
import { PgListener } from './pgListener.ts';
import { PgProbe } from './pgProbe.ts';
import { migratePg } from './pgMigrations.ts';
import { poolQuery, poolTransaction, readSnapshot } from './pgQuery.ts';
import { PgBoard, PgRuns } from './pgRuns.ts';
import { PgWriter } from './pgWriter.ts';

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
  // A connection the server closed (a restart, a killed backend, a cut network) is an 'error' event on its client:
  // on the pool while idle, on the client itself while checked out — where an unheard 'error' ends the process. The
  // query in flight fails with it (a connection error: retried or 503), and the pool drops the broken client.
  pool.on('error', () => undefined);
  pool.on('connect', (c) => c.on('error', () => undefined));
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
  try {
    await store.listener.start();
  } catch (e) {
    await store.close();
    throw new StallscopeError('STORE_UNREADABLE', `${redactDbUrl(o.url)}: ${(e as Error).message}`);
  }
  return store;
}

export class PgStore implements DashboardStore {
  readonly kind = 'postgres' as const;
  readonly instance = randomInt(1, 2 ** 31 - 1);
  readonly kysely: Kysely<StallscopeDb>;
  readonly ingest: PgIngest;
  readonly runReads: PgRuns;
  readonly runWrites: PgRuns;
  readonly board: PgBoard;
  readonly metrics: KyselyMetricsQueries;
  readonly tokens: KyselyTokenStore;
  readonly retention: KyselyRetentionStore;
  readonly admin: PgAdmin;
  readonly writer: PgWriter;
  readonly listener: PgListener;
  readonly probe: PgProbe;

  constructor(
    readonly pool: pg.Pool,
    o: PgStoreOptions,
  ) {
    this.kysely = new Kysely<StallscopeDb>({ dialect: new PostgresDialect({ pool }) });
    this.tokens = new KyselyTokenStore(this.kysely);
    this.retention = new KyselyRetentionStore(this.kysely);
    this.metrics = new KyselyMetricsQueries(this.kysely, MAX_GROUPS, readSnapshot(this.kysely));
    const feed = new IngestFeed();
    this.writer = new PgWriter(pool, {
      intervalMs: o.flushIntervalMs,
      maxBatch: o.maxBatch,
      capacity: o.bufferEvents,
      stateOf: (id) => feed.stateOf(id),
      numbered: (r, s, j) => feed.numbered(r, s, j),
      instance: this.instance,
      onError: (e) => process.stderr.write(`stallscope: live events could not be stored: ${e.stack ?? e.message}\n`),
      onConnection: (up, e) => this.ingest.connection(up, e),
    });
    this.listener = new PgListener(o.url, this.instance, types, (c) => feed.remote(c));
    this.ingest = new PgIngest(feed, pool, this.writer, this.listener);
    const q = poolQuery(pool);
    const tx = poolTransaction(pool);
    this.runReads = this.runWrites = new PgRuns(q, tx, this.writer, new RequestPages(this.kysely), this.instance);
    this.board = new PgBoard(q, this.kysely);
    this.admin = new PgAdmin(q, tx, this.instance);
    this.probe = new PgProbe(pool, this.writer);
    this.probe.start();
  }

  async close(): Promise<void> {
    this.probe.stop();
    await this.writer.close();
    await this.listener.stop();
    await this.kysely.destroy().catch(() => undefined);
    // Kysely ends the pool only once it has queried through it: a store that never did (`db export` of no
    // run) kept the migration's idle client, and the process alive, for the pool's 10 s idle timeout.
    if (!this.pool.ending) await this.pool.end().catch(() => undefined);
  }
}
