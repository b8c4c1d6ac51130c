/**
 * The SQLite store's live path: this process is the database's only writer
 * (the data-folder lock), so it numbers a run's events itself, at once, from
 * the run's stored `last_seq`, emits each numbered event, and queues it to
 * the batched writer.
 */
import type { StoreHealth } from '../../../../shared/protocol/storeHealth.ts';
import type { RunState } from '../../../../shared/protocol/protocol.ts';
import type { Effects } from '../common/effects.ts';
import type { IngestFeed } from '../common/ingestFeed.ts';
import { queueStatsOf, type QueueStats } from '../common/records.ts';
import type { IngestListener, IngestStore } from '../common/storeApi.ts';
import type { RunQueries } from './runQueries.ts';
import type { BatchWriter } from './writer.ts';

export class SqliteIngest implements IngestStore {
  readonly soleWriter = true;
  /** The last seq given to each run this process wrote to (its stored last_seq plus what is queued). */
  private readonly seqs = new Map<string, number>();

  constructor(
    private readonly feed: IngestFeed,
    private readonly runs: RunQueries,
    private readonly writer: BatchWriter,
  ) {}

  push(runId: string, json: string, effects: Effects): void {
    const seq = (this.seqs.get(runId) ?? this.runs.lastSeq(runId)) + 1;
    this.seqs.set(runId, seq);
    this.feed.numbered(runId, seq, json);
    this.writer.push(runId, seq, json, effects);
  }

  /** The run's seq is read from its row again (it was deleted, or numbered by recovery). */
  forget(runId: string): void {
    this.seqs.delete(runId);
  }

  liveState(runId: string, state: RunState | null): void {
    this.feed.liveState(runId, state);
  }

  subscribe(l: Partial<IngestListener>): () => void {
    return this.feed.subscribe(l);
  }

  /** One process per data folder: no one else is told. */
  announce(): void {}

  /** Synchronous underneath: the promise is settled when it is returned (callers may rely on the commit being done). */
  flush(): Promise<void> {
    this.writer.flush();
    return Promise.resolve();
  }

  /** Nothing waits: a batch is written within the writer's interval, and a crash loses at most that batch. */
  settled(): Promise<void> {
    return Promise.resolve();
  }

  /** The only writer: what it queued is what every reader will see. */
  committed(): Promise<boolean> {
    return Promise.resolve(true);
  }

  hasRoom(): boolean {
    return true;
  }

  queueStats(): QueueStats {
    return queueStatsOf(this.writer);
  }

  /** An embedded database does not go away. */
  health(): StoreHealth {
    return {
      database: 'sqlite',
      connected: true,
      buffered: this.writer.pendingCount,
      capacity: 0,
      downSinceMs: null,
      lastError: null,
    };
  }
}
