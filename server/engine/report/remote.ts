/**
 * `stallscope bench --report-to URL`: streams a CLI run into a running
 * dashboard. `onEvent` only queues (the benchmark never waits on the
 * dashboard); batches are posted every `flushMs`, at once for `run.finished`.
 * A 503 (the dashboard's database is away and its outage buffer is full:
 * docs/design.md#outage-buffer) keeps the batch and retries it with back-off,
 * events queuing meanwhile up to `maxQueue`. If the dashboard is unreachable
 * or refuses otherwise, this says so once and drops everything after; the
 * benchmark carries on. `close()` sends what is left
 * (bounded by `closeTimeoutMs`) and releases its sockets.
 *
 * Wire: POST {url}/api/runs/external {runId, config, label, metadata}, then
 * POST {url}/api/runs/{runId}/events {events: BenchEvent[]}. A `?token=` on
 * the URL (or $STALLSCOPE_TOKEN) is sent as a bearer token.
 */
import type { BenchEvent } from '../../../shared/protocol/protocol.ts';
import { redactUrlsDeep } from '../../../shared/redact.ts';
import { lazyPool, readCapped } from '../transport/simpleClient.ts';

export interface RemoteReporterOptions {
  url: string;
  runId: string;
  /** The run's configuration (its flat recorded shape, `flatRunConfig`); the API key and headers are never sent. */
  config: unknown;
  log: (line: string) => void;
  flushMs?: number;
  /** Events kept while the dashboard is slow; beyond it they are dropped and counted. */
  maxQueue?: number;
  closeTimeoutMs?: number;
}

export interface RemoteReporter {
  onEvent(e: BenchEvent): void;
  /** Sends what is left, bounded by `closeTimeoutMs`; `stop` (a signal) ends the wait at once. */
  close(stop?: AbortSignal): Promise<void>;
}

const BATCH = 5000;

/** The config without secrets: the API key, headers such as Authorization (the target's and the recogniser's), credentials in URLs. */
function publicConfig(c: unknown): Record<string, unknown> {
  if (typeof c !== 'object' || c === null) return {};
  const { apiKey: _k, headers: _h, ...rest } = c as Record<string, unknown>;
  const eval_ = rest.seedTtsEval as Record<string, unknown> | null | undefined;
  if (eval_ && typeof eval_ === 'object' && 'asrHeaders' in eval_) {
    const { asrHeaders: _a, ...evalRest } = eval_;
    rest.seedTtsEval = evalRest;
  }
  return redactUrlsDeep(rest);
}

/** Bytes of a dashboard reply read at most: a reply is a few bytes of JSON; a URL that streams more is not a dashboard. */
export const REPLY_READ_CAP = 64 * 1024;

export function createRemoteReporter(o: RemoteReporterOptions): RemoteReporter {
  const u = new URL(o.url);
  const token = u.searchParams.get('token') ?? process.env.STALLSCOPE_TOKEN ?? null;
  const base = `${u.origin}${u.pathname.replace(/\/+$/, '')}`;
  // undici is loaded with the first post, not with every `stallscope bench` (few report).
  const pool = lazyPool({ keepAliveTimeout: 1000, connectTimeout: 5000 });
  const headers = { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) };
  let queue: BenchEvent[] = [];
  let dropped = 0;
  let disabled = false;
  let timer: NodeJS.Timeout | null = null;
  let chain: Promise<void>;

  /** One post; a 503 is retried (back-off 0.25 s doubling to 4 s, or the reply's Retry-After) until stopped. */
  let stopRetrying = false;
  const post = async (path: string, body: unknown): Promise<void> => {
    for (let wait = 250; ; wait = Math.min(4000, wait * 2)) {
      const r = await postOnce(path, body);
      if (r === null) return;
      if (stopRetrying) throw new Error('HTTP 503: the dashboard could not store the events before the run ended');
      await new Promise((res) => setTimeout(res, r > 0 ? Math.min(r, 30_000) : wait));
    }
  };
  /** Null when accepted; the Retry-After in ms (0 when absent) after a 503; throws on any other refusal. */
  const postOnce = async (path: string, body: unknown): Promise<number | null> => {
    const { undici, agent } = await pool.get();
    const res = await undici.request(`${base}${path}`, {
      method: 'POST',
      headers,
      body: JSON.stringify(body),
      dispatcher: agent,
      headersTimeout: 10_000,
      bodyTimeout: 10_000,
    });
    const text = (await readCapped(res.body, REPLY_READ_CAP)).bytes.toString('utf8');
    if (res.statusCode === 503) return Number(res.headers['retry-after'] ?? 0) * 1000 || 0;
    if (res.statusCode >= 300) throw new Error(`HTTP ${res.statusCode}: ${text.slice(0, 200)}`);
    return null;
  };
  const giveUp = (e: unknown) => {
    if (disabled) return;
    disabled = true;
    queue = [];
    o.log(
      `stallscope: cannot report to the dashboard at ${base} (${(e as Error).message}); the benchmark goes on without it`,
    );
  };

  const cfg = publicConfig(o.config);
  chain = post('/api/runs/external', {
    runId: o.runId,
    config: cfg,
    label: typeof cfg.label === 'string' ? cfg.label : null,
    metadata: (cfg.metadata as Record<string, string> | undefined) ?? {},
  }).catch(giveUp);

  const flush = (): Promise<void> => {
    if (timer) {
      clearTimeout(timer);
      timer = null;
    }
    chain = chain.then(async () => {
      while (!disabled && queue.length) {
        const batch = queue.splice(0, BATCH);
        await post(`/api/runs/${encodeURIComponent(o.runId)}/events`, { events: batch }).catch(giveUp);
      }
    });
    return chain;
  };

  return {
    onEvent(e) {
      if (disabled) return;
      if (queue.length >= (o.maxQueue ?? 200_000)) {
        dropped++;
        return;
      }
      queue.push(e);
      if (e.type === 'run.finished') void flush();
      else if (!timer) {
        timer = setTimeout(() => void flush(), o.flushMs ?? 200);
        timer.unref();
      }
    },
    async close(stop) {
      const limit = o.closeTimeoutMs ?? 5000;
      let t: NodeJS.Timeout | undefined;
      let onStop: (() => void) | undefined;
      const cut = new Promise<'timeout' | 'stopped'>((r) => {
        t = setTimeout(() => r('timeout'), limit);
        onStop = () => r('stopped');
        if (stop?.aborted) onStop();
        else stop?.addEventListener('abort', onStop, { once: true });
      });
      const r = await Promise.race([flush().then(() => 'done' as const), cut]);
      clearTimeout(t);
      if (onStop) stop?.removeEventListener('abort', onStop);
      stopRetrying = r !== 'done';
      if (r === 'timeout') giveUp(new Error(`still sending after ${limit} ms`));
      if (r === 'stopped') giveUp(new Error('stopped by a signal while still sending'));
      if (dropped && !disabled) o.log(`stallscope: ${dropped} events were not reported to the dashboard (queue full)`);
      await pool.close();
    },
  };
}
