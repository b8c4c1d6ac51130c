/**
 * `stallscope bench --report-to URL`: streams a CLI run into a running
 * dashboard. `onEvent` only queues (the benchmark never waits on the
 * dashboard); batches are posted every `flushMs`, at once for `run.finished`.
 * A 503 (the dashboard's database is away and its outage buffer is full:
 * docs/design.md#outage-buffer) keeps the batch and retries it with back-off,
 * events queuing meanwhile up to `maxQueue`. If the dashboard is unreachable
 * or refuses otherwise (401, 403, 409, 413; a 503 past the close deadline),
 * this says so once, with the cause and the events it cost, and drops
 * everything after; `close()` prints how many events that was in all
 * (docs/design.md#loud-drops). The benchmark carries on. `close()` sends what
 * is left (bounded by `closeTimeoutMs`) and releases its sockets. The events
 * are sent with their secrets masked, as the config is (shared/redact.ts).
 *
 * Wire: POST {url}/api/runs/external {runId, config, label, metadata}, then
 * POST {url}/api/runs/{runId}/events {events: BenchEvent[]}. A `?token=` on
 * the URL (or $STALLSCOPE_TOKEN) is sent as a bearer token.
 */
import type { BenchEvent } from '../../../shared/protocol/protocol.ts';
import { redactSecretKeys, redactSecretsDeep } from '../../../shared/redact.ts';
import { RefusalTally, unreachable, type Refusal } from '../../common/refusalTally.ts';
import { DashboardPoster, RefusedPost, REPLY_READ_CAP } from './dashboardPost.ts';
import { trimTrailingSlashes } from '../../../shared/text.ts';

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

/**
 * The config without secrets: the API key, headers such as Authorization (the target's and the recogniser's),
 * credentials in URLs and credential-named body parameters.
 */
function publicConfig(c: unknown): Record<string, unknown> {
  if (typeof c !== 'object' || c === null) return {};
  const { apiKey: _k, headers: _h, ...rest } = c as Record<string, unknown>;
  const eval_ = rest.seedTtsEval as Record<string, unknown> | null | undefined;
  if (eval_ && typeof eval_ === 'object' && 'asrHeaders' in eval_) {
    const { asrHeaders: _a, ...evalRest } = eval_;
    rest.seedTtsEval = evalRest;
  }
  // A request body's own credentials (`--extra-body '{"api_key": …}'`).
  if (rest.extraBody) rest.extraBody = redactSecretKeys(rest.extraBody);
  return redactSecretsDeep(rest);
}

export { REPLY_READ_CAP };

export function createRemoteReporter(o: RemoteReporterOptions): RemoteReporter {
  const u = new URL(o.url);
  const token = u.searchParams.get('token') ?? process.env.STALLSCOPE_TOKEN ?? null;
  const base = `${u.origin}${trimTrailingSlashes(u.pathname)}`;
  const poster = new DashboardPoster(base, token);
  let queue: BenchEvent[] = [];
  let dropped = 0;
  /** Why the reporter stopped, once it has; the events it drops from then on are counted against that cause. */
  let disabled: Refusal | null = null;
  let droppedAfter = 0;
  const tally = new RefusalTally({
    who: `stallscope: --report-to ${base}`,
    log: o.log,
    hasToken: token !== null,
    noTokenHint:
      "put ?token= on the --report-to URL or set $STALLSCOPE_TOKEN ('stallscope token create --scope report')",
    then: 'the benchmark goes on without the dashboard',
  });
  let timer: NodeJS.Timeout | null = null;
  let chain: Promise<void>;

  /** Events of the batch being posted: lost with the queue if the reporter gives up before it is taken. */
  let sending = 0;
  /** Stops reporting: says why once, with the events this cost (the batch being posted and the queue). */
  const giveUp = (e: unknown, what?: string) => {
    if (disabled) return;
    disabled = e instanceof RefusedPost ? e.refusal : unreachable(e);
    tally.refused(disabled, sending + queue.length, { what });
    queue = [];
  };

  const cfg = publicConfig(o.config);
  chain = poster
    .post('/api/runs/external', {
      runId: o.runId,
      config: cfg,
      label: typeof cfg.label === 'string' ? cfg.label : null,
      metadata: (cfg.metadata as Record<string, string> | undefined) ?? {},
    })
    .catch((e: unknown) => giveUp(e, 'the run'));

  const flush = (): Promise<void> => {
    if (timer) {
      clearTimeout(timer);
      timer = null;
    }
    chain = chain.then(async () => {
      while (!disabled && queue.length) {
        // Secrets in the events (a run.started's baseUrl with user:password@) never leave this process.
        const batch = queue.splice(0, BATCH).map(redactSecretsDeep);
        sending = batch.length;
        await poster
          .post(`/api/runs/${encodeURIComponent(o.runId)}/events`, { events: batch })
          .catch((e: unknown) => giveUp(e));
        sending = 0;
      }
    });
    return chain;
  };

  return {
    onEvent(e) {
      if (disabled) {
        droppedAfter++;
        return;
      }
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
      if (r !== 'done') poster.stopRetrying();
      // A post waiting out 503s when the run ends is lost to that 503 (the dashboard's database is away).
      if (r !== 'done' && poster.retrying) giveUp(new RefusedPost(poster.retrying));
      if (r === 'timeout') giveUp(new Error(`still sending after ${limit} ms`));
      if (r === 'stopped') giveUp(new Error('stopped by a signal while still sending'));
      if (disabled && droppedAfter) tally.refused(disabled, droppedAfter, { posts: 0 });
      tally.close();
      if (dropped && !disabled) o.log(`stallscope: ${dropped} events were not reported to the dashboard (queue full)`);
      await poster.close();
    },
  };
}
