/**
 * The reproduction server's telemetry outbox (not the dashboard's broadcaster,
 * server/dashboard/hub/): fan-out of its telemetry: stamps version, time and
 * model on each event, then hands it to every sink and to the optional
 * in-process callback.
 * Emitting never blocks and never throws into the caller.
 */
import { TELEMETRY_VERSION, type TelemetryEvent } from '../../../shared/protocol/telemetry.ts';

type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;
/** An event as the emitter builds it; the outbox fills in `v`, `ts` (unless given) and `model`. */
export type TelemetryInput = DistributiveOmit<TelemetryEvent, 'v' | 'ts' | 'model'> & { ts?: number };

export interface TelemetrySink {
  /** Queues one event; must return at once. */
  push(e: TelemetryEvent): void;
  /** Resolves once every event queued so far has been delivered (or counted as dropped). */
  flush(): Promise<{ sent: number; dropped: number }>;
  close(): Promise<void>;
}

export class TelemetryOutbox {
  constructor(
    private readonly model: string,
    private readonly sinks: TelemetrySink[],
    private readonly callback?: (e: TelemetryEvent) => void,
  ) {}

  emit(input: TelemetryInput): void {
    const e = { ...input, v: TELEMETRY_VERSION, ts: input.ts ?? Date.now(), model: this.model } as TelemetryEvent;
    for (const s of this.sinks) s.push(e);
    if (this.callback) {
      try {
        this.callback(e);
      } catch {
        /* a test callback's failure must not break the server */
      }
    }
  }

  async flush(): Promise<{ sent: number; dropped: number }> {
    let sent = 0;
    let dropped = 0;
    for (const s of this.sinks) {
      const r = await s.flush();
      sent += r.sent;
      dropped += r.dropped;
    }
    return { sent, dropped };
  }

  async close(): Promise<void> {
    for (const s of this.sinks) await s.close();
  }
}
