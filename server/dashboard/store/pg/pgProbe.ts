/**
 * The PostgreSQL store's health probe (docs/design.md#outage-buffer): an idle dashboard writes nothing, so
 * without it `/api/health` said `connected: true` with the database gone until a report failed. Every
 * `everyMs` while the writer is not writing (a write says it already), `SELECT 1` with a short timeout: a
 * failure marks the store disconnected, an answer connected again (and retries what waits in the buffer now).
 */
import type pg from 'pg';
import type { PgWriter } from './pgWriter.ts';

export const PROBE_EVERY_MS = 2000;
const PROBE_TIMEOUT_MS = 1500;

export class PgProbe {
  private timer: NodeJS.Timeout | null = null;
  private inFlight = false;

  constructor(
    private readonly pool: pg.Pool,
    private readonly writer: PgWriter,
    private readonly everyMs = PROBE_EVERY_MS,
  ) {}

  start(): void {
    this.timer ??= setInterval(() => void this.once(), this.everyMs);
  }

  /** One probe; a slow one is not overlapped by the next. */
  async once(): Promise<void> {
    if (this.inFlight || this.writer.writing) return;
    this.inFlight = true;
    try {
      // query_timeout bounds a connection that answers nothing (a cut network); the pool drops that client.
      await this.pool.query({ text: 'SELECT 1', query_timeout: PROBE_TIMEOUT_MS } as pg.QueryConfig);
      if (this.timer) this.writer.probeAnswered();
    } catch (e) {
      if (this.timer) this.writer.probeFailed(e as Error);
    } finally {
      this.inFlight = false;
    }
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }
}
