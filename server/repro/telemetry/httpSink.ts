/**
 * Telemetry over HTTP: NDJSON batches POSTed to the given URL (used verbatim,
 * e.g. the dashboard's ingest endpoint with its runId). The queue is bounded
 * and sending runs in the background, so a slow or absent sink never blocks
 * the server; events that cannot be queued or delivered are counted and
 * reported in a `telemetry.dropped` event with the next batch. What the
 * dashboard refuses (401, 403, 409, 413, 503), cannot be reached for, or takes
 * without storing (a 200 with `unjoined` or `rejected` lines) is printed once
 * per cause with its count, and the totals at close (docs/design.md#loud-drops):
 * a server whose token is missing must not lose its stacks in silence.
 */
import { TELEMETRY_TOKEN_ENV, TELEMETRY_VERSION, type TelemetryEvent } from '../../../shared/protocol/telemetry.ts';
import { readRefusal, RefusalTally, unreachable } from '../../common/refusalTally.ts';
import type { TelemetrySink } from './outbox.ts';

export interface HttpSinkOptions {
  url: string;
  /** The dashboard's token, sent as `x-stallscope-token`. */
  token?: string;
  maxQueue?: number;
  maxBatch?: number;
  flushIntervalMs?: number;
  requestTimeoutMs?: number;
  /** Where refusals and drops are told (stderr unless given). */
  log?: (line: string) => void;
}

export class HttpTelemetrySink implements TelemetrySink {
  private queue: TelemetryEvent[] = [];
  private sent = 0;
  private dropped = 0;
  private unreported = 0;
  private timer: NodeJS.Timeout | null = null;
  private sending: Promise<void> | null = null;
  private closed = false;
  private readonly maxQueue: number;
  private readonly maxBatch: number;
  private readonly interval: number;
  private readonly timeout: number;
  private readonly tally: RefusalTally;

  constructor(private readonly opts: HttpSinkOptions) {
    this.tally = new RefusalTally({
      who: 'telemetry',
      log: opts.log ?? ((line) => process.stderr.write(`${line}\n`)),
      hasToken: Boolean(opts.token),
      noTokenHint: `set $${TELEMETRY_TOKEN_ENV} to a report token ('stallscope token create --scope report')`,
    });
    this.maxQueue = opts.maxQueue ?? 10_000;
    this.maxBatch = opts.maxBatch ?? 500;
    this.interval = opts.flushIntervalMs ?? 100;
    this.timeout = opts.requestTimeoutMs ?? 3000;
  }

  push(e: TelemetryEvent): void {
    if (this.closed || this.queue.length >= this.maxQueue) {
      this.dropped++;
      this.unreported++;
      return;
    }
    this.queue.push(e);
    if (!this.timer && !this.sending) {
      this.timer = setTimeout(() => {
        this.timer = null;
        void this.drain();
      }, this.interval);
    }
  }

  /** Sends until the queue is empty; concurrent callers share one drain loop. */
  private drain(): Promise<void> {
    if (!this.sending) {
      this.sending = (async () => {
        while (this.queue.length > 0 || this.unreported > 0) {
          const batch = this.queue.splice(0, this.maxBatch);
          if (this.unreported > 0) {
            batch.push({
              v: TELEMETRY_VERSION,
              type: 'telemetry.dropped',
              ts: Date.now(),
              model: batch[0]?.model,
              count: this.unreported,
            });
            this.unreported = 0;
          }
          await this.post(batch);
        }
      })().finally(() => {
        this.sending = null;
        // Events pushed while the last POST was finishing still need a send.
        if ((this.queue.length > 0 || this.unreported > 0) && !this.timer && !this.closed) {
          this.timer = setTimeout(() => {
            this.timer = null;
            void this.drain();
          }, this.interval);
        }
      });
    }
    return this.sending;
  }

  private async post(batch: TelemetryEvent[]): Promise<void> {
    const body = batch.map((e) => JSON.stringify(e)).join('\n') + '\n';
    // A drop notice is not an event of the server's: it is not counted as lost.
    const events = batch.filter((e) => e.type !== 'telemetry.dropped').length;
    try {
      const res = await fetch(this.opts.url, {
        method: 'POST',
        headers: {
          'content-type': 'application/x-ndjson',
          ...(this.opts.token ? { 'x-stallscope-token': this.opts.token } : {}),
        },
        body,
        signal: AbortSignal.timeout(this.timeout),
      });
      const text = await res.text().catch(() => '');
      if (!res.ok) {
        this.tally.refused(readRefusal(res.status, text), events);
        this.dropped += events;
        return;
      }
      this.sent += batch.length;
      this.tally.accepted(ingestReply(text));
    } catch (e) {
      // Delivery failed: these events are lost. Count them, but do not report
      // a drop notice about the drop notice itself.
      // (Re-queueing a notice for them would retry forever against an absent
      // sink; the totals are in flush()'s answer and in /health.)
      this.tally.refused(unreachable(e), events);
      this.dropped += events;
    }
  }

  async flush(): Promise<{ sent: number; dropped: number }> {
    if (this.timer) {
      clearTimeout(this.timer);
      this.timer = null;
    }
    await this.drain();
    return { sent: this.sent, dropped: this.dropped };
  }

  async close(): Promise<void> {
    if (this.closed) return;
    await this.flush();
    this.closed = true;
    this.tally.close();
  }
}

/** The counts of /api/ingest's reply; none when the sink is not a dashboard (any URL may take telemetry). */
function ingestReply(text: string): {
  unjoined: number;
  rejected: number;
  errors: { line: number; message: string }[];
} {
  const count = (v: unknown) => (typeof v === 'number' && Number.isSafeInteger(v) && v > 0 ? v : 0);
  try {
    const j = JSON.parse(text) as { unjoined?: unknown; rejected?: unknown; errors?: unknown };
    const errors = Array.isArray(j?.errors) ? (j.errors as { line?: unknown; message?: unknown }[]) : [];
    return {
      unjoined: count(j?.unjoined),
      rejected: count(j?.rejected),
      errors: errors
        .filter((e) => typeof e?.message === 'string')
        .map((e) => ({ line: count(e.line), message: e.message as string })),
    };
  } catch {
    return { unjoined: 0, rejected: 0, errors: [] };
  }
}
