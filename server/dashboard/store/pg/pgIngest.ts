/**
 * The PostgreSQL store's live path: events queue to the writer, which has the
 * database number them at commit (pgWriter.ts) and buffers them while it is
 * away (#outage-buffer); the listener brings what other processes wrote
 * (pgListener.ts). Both are emitted through the feed, with health changes.
 */
import type pg from 'pg';
import type { RunState } from '../../../../shared/protocol/protocol.ts';
import type { StoreHealth } from '../../../../shared/protocol/storeHealth.ts';
import type { Effects } from '../common/effects.ts';
import type { IngestFeed } from '../common/ingestFeed.ts';
import { queueStatsOf, type QueueStats } from '../common/records.ts';
import type { IngestListener, IngestStore } from '../common/storeApi.ts';
import type { PgListener } from './pgListener.ts';
import type { PgWriter } from './pgWriter.ts';

export class PgIngest implements IngestStore {
  readonly soleWriter = false;
  private downSinceMs: number | null = null;
  private lastError: string | null = null;

  constructor(
    private readonly feed: IngestFeed,
    private readonly pool: pg.Pool,
    private readonly writer: PgWriter,
    private readonly listener: PgListener,
  ) {}

  /** The writer reached the database, or lost it. */
  connection(up: boolean, e: Error | null): void {
    this.downSinceMs = up ? null : Date.now();
    this.lastError = up ? null : (e?.message.split('\n')[0] ?? 'unreachable');
    this.feed.healthChanged();
    process.stderr.write(
      up
        ? 'stallscope: the database answers again; the buffered reports are being written\n'
        : `stallscope: the database is unreachable (${this.lastError}); reports are buffered (up to ${this.writer.capacity} events) and retried\n`,
    );
  }

  push(runId: string, json: string, effects: Effects): void {
    this.writer.push(runId, json, effects);
  }
  liveState(runId: string, state: RunState | null): void {
    this.feed.liveState(runId, state);
  }
  subscribe(l: Partial<IngestListener>): () => void {
    return this.feed.subscribe(l);
  }
  announce(runId: string, status: string): void {
    // An end is announced with the run's final update (same transaction); a start once its row exists.
    if (status === 'running') this.listener.notify({ k: 'runs', r: runId, st: status }, this.pool);
  }
  flush(): Promise<void> {
    return this.writer.drain();
  }
  settled(): Promise<void> {
    return this.writer.written();
  }
  committed(maxWaitMs: number): Promise<boolean> {
    return this.writer.committed(maxWaitMs);
  }
  hasRoom(events: number): boolean {
    return this.writer.pendingCount + events <= this.writer.capacity;
  }
  queueStats(): QueueStats {
    return queueStatsOf(this.writer);
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
}
