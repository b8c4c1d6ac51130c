/**
 * One JSON post to a dashboard for `bench --report-to`, as the reporter
 * needs it: a 503 (the dashboard's database is away and its outage buffer is
 * full: docs/design.md#outage-buffer) is waited out with back-off (0.25 s
 * doubling to 4 s, or the reply's Retry-After) until `stopRetrying()`; any
 * other refusal throws a `RefusedPost` carrying the dashboard's `{code, message}`.
 */
import { readRefusal, type Refusal } from '../../common/refusalTally.ts';
import { lazyPool, readCapped } from '../transport/simpleClient.ts';

/** Bytes of a dashboard reply read at most: a reply is a few bytes of JSON; a URL that streams more is not a dashboard. */
export const REPLY_READ_CAP = 64 * 1024;

/** A post the dashboard answered with a refusal: the reporter stops on it. */
export class RefusedPost extends Error {
  constructor(readonly refusal: Refusal) {
    super(`HTTP ${refusal.status} ${refusal.code}: ${refusal.message}`);
  }
}

export class DashboardPoster {
  // undici is loaded with the first post, not with every `stallscope bench` (few report).
  private readonly pool = lazyPool({ keepAliveTimeout: 1000, connectTimeout: 5000 });
  private readonly headers: Record<string, string>;
  private stop = false;
  /** The 503 the post in flight is waiting out, if it is: what the reporter gives up on when the run ends first. */
  retrying: Refusal | null = null;

  constructor(
    private readonly base: string,
    token: string | null,
  ) {
    this.headers = { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) };
  }

  async post(path: string, body: unknown): Promise<void> {
    for (let wait = 250; ; wait = Math.min(4000, wait * 2)) {
      const r = await this.postOnce(path, body);
      this.retrying = r?.refusal ?? null;
      if (r === null) return;
      if (this.stop) throw new RefusedPost(r.refusal);
      await new Promise((res) => setTimeout(res, r.retryMs > 0 ? Math.min(r.retryMs, 30_000) : wait));
    }
  }

  /** A post waiting out 503s throws its 503 at its next answer. */
  stopRetrying(): void {
    this.stop = true;
  }

  close(): Promise<void> {
    return this.pool.close();
  }

  /** Null when accepted; the Retry-After in ms (0 when absent) after a 503; throws on any other refusal. */
  private async postOnce(path: string, body: unknown): Promise<{ retryMs: number; refusal: Refusal } | null> {
    const { undici, agent } = await this.pool.get();
    const res = await undici.request(`${this.base}${path}`, {
      method: 'POST',
      headers: this.headers,
      body: JSON.stringify(body),
      dispatcher: agent,
      headersTimeout: 10_000,
      bodyTimeout: 10_000,
    });
    const text = (await readCapped(res.body, REPLY_READ_CAP)).bytes.toString('utf8');
    if (res.statusCode === 503)
      return { retryMs: Number(res.headers['retry-after'] ?? 0) * 1000 || 0, refusal: readRefusal(503, text) };
    if (res.statusCode >= 300) throw new RefusedPost(readRefusal(res.statusCode, text));
    return null;
  }
}
