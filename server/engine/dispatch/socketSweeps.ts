/**
 * The connection sweeps a run's stop starts (the breaker's trip, an
 * interrupt: cancelAll in http/cancelSweep.ts), collected so the dispatch
 * resolves only once every socket they close is closed, and so the sockets
 * that outlived the sweep's deadline are said once.
 */
import type { RunEvents } from '../records/events.ts';
import { CLEANUP_DEADLINE_MS } from '../transport/index.ts';

export class SocketSweeps {
  private readonly sweeps: Promise<{ forcedSockets: number }>[] = [];

  add(sweep: Promise<{ forcedSockets: number }>): void {
    this.sweeps.push(sweep);
  }

  /** Waits for every sweep; returns the sockets destroyed one by one after the deadline (expected 0), with a warning when any. */
  async settled(events: RunEvents, log?: (line: string) => void): Promise<number> {
    const swept = await Promise.all(this.sweeps);
    const forced = swept.reduce((a, r) => a + r.forcedSockets, 0);
    if (forced > 0) {
      const message =
        `cleanup: ${forced} socket(s) were still open ${CLEANUP_DEADLINE_MS} ms after the stop ` +
        `and were destroyed one by one`;
      log?.(message);
      events.emit({ type: 'run.warning', message });
    }
    return forced;
  }
}
