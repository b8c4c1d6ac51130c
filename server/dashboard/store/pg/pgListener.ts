/**
 * One dedicated connection per dashboard process that LISTENs on the
 * `stallscope` channel (what other processes wrote: a run's new events, a run
 * started or ended) and holds this process's owner lock — the advisory lock
 * that tells a starting dashboard this process is alive, so its running runs
 * are not marked interrupted. Reconnects with back-off when the database
 * goes away (docs/design.md#team-dashboard).
 */
import pg from 'pg';
import type { RemoteChange } from '../common/records.ts';

/** The first key of the owner locks ('stlo'); the second is the process's instance number. */
export const OWNER_LOCK_CLASS = 0x73746c6f;

interface Payload {
  i?: number;
  k: 'events' | 'runs';
  r: string;
  s?: number;
  st?: string;
}

export class PgListener {
  private client: pg.Client | null = null;
  private stopped = false;
  private retryMs = 100;
  private timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly url: string,
    private readonly instance: number,
    private readonly types: pg.CustomTypesConfig,
    private readonly onChange: (c: RemoteChange) => void,
  ) {}

  async start(): Promise<void> {
    const c = new pg.Client({ connectionString: this.url, types: this.types });
    c.on('error', () => this.reconnect(c));
    c.on('end', () => this.reconnect(c));
    c.on('notification', (n) => this.received(n.payload));
    await c.connect();
    await c.query('SELECT pg_advisory_lock($1, $2)', [OWNER_LOCK_CLASS, this.instance]);
    await c.query('LISTEN stallscope');
    this.client = c;
    this.retryMs = 100;
  }

  private received(payload: string | undefined): void {
    if (!payload) return;
    let p: Payload;
    try {
      p = JSON.parse(payload) as Payload;
    } catch {
      return;
    }
    if (p.i === this.instance || typeof p.r !== 'string') return;
    if (p.k === 'events' && typeof p.s === 'number') this.onChange({ kind: 'events', runId: p.r, lastSeq: p.s });
    else if (p.k === 'runs') this.onChange({ kind: 'runs', runId: p.r, status: p.st ?? 'running' });
  }

  private reconnect(c: pg.Client): void {
    if (this.client !== c && this.client !== null) return;
    this.client = null;
    void c.end().catch(() => undefined);
    if (this.stopped || this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = null;
      this.start().catch(() => {
        this.retryMs = Math.min(5000, this.retryMs * 2);
        this.reconnect(c);
      });
    }, this.retryMs);
  }

  /** Tells the other processes (fire and forget: a lost notice only delays what their pages show). */
  notify(p: Omit<Payload, 'i'>, pool: pg.Pool): void {
    pool
      .query(`SELECT pg_notify('stallscope', $1)`, [JSON.stringify({ i: this.instance, ...p })])
      .catch(() => undefined);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    const c = this.client;
    this.client = null;
    await c?.end().catch(() => undefined);
  }
}
