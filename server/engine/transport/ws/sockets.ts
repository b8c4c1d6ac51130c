/**
 * Every WebSocket a run opens to a realtime target (docs/design.md#realtime):
 * registered the moment it is created (still connecting included), so the
 * run's sweep (a trip, an interrupt, the run's end) terminates each one and
 * resolves only when all are closed, within the same deadline as the HTTP
 * sweep (docs/design.md#bounded-stop).
 */
import WebSocket from 'ws';
import type { Sweeper } from '../http/cancelSweep.ts';
import { CLEANUP_DEADLINE_MS } from '../http/dispatcher.ts';

export class RealtimeSockets implements Sweeper {
  private readonly open = new Set<WebSocket>();
  /** Sockets opened over the run (a loopback test counts them against the server's view). */
  opened = 0;
  /** Set by the first sweep: the run is stopping, and a socket opened after it is ended at once. */
  private swept = false;

  /** Opens and registers one WebSocket; it leaves the registry when it closes. */
  connect(url: string, options: WebSocket.ClientOptions): WebSocket {
    const ws = new WebSocket(url, options);
    this.opened++;
    this.open.add(ws);
    ws.once('close', () => this.open.delete(ws));
    if (this.swept) {
      ws.on('error', () => undefined);
      ws.terminate();
    }
    return ws;
  }

  get size(): number {
    return this.open.size;
  }

  async sweep(_reason: Error | null): Promise<{ forcedSockets: number }> {
    this.swept = true;
    if (this.open.size === 0) return { forcedSockets: 0 };
    const closed = [...this.open].map(
      (ws) =>
        new Promise<void>((resolve) => {
          if (ws.readyState === WebSocket.CLOSED) return resolve();
          ws.once('close', () => resolve());
          ws.on('error', () => undefined); // terminating a connecting socket reports an error: expected
          ws.terminate();
        }),
    );
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<'late'>((r) => (timer = setTimeout(() => r('late'), CLEANUP_DEADLINE_MS)));
    const late = (await Promise.race([Promise.all(closed), deadline])) === 'late';
    clearTimeout(timer);
    const forcedSockets = late ? this.open.size : 0;
    // A socket still open past the deadline: its TCP socket is destroyed outright, and it is dropped.
    for (const ws of this.open) (ws as unknown as { _socket?: { destroy(): void } })._socket?.destroy();
    this.open.clear();
    return { forcedSockets };
  }

  hurry(): void {
    for (const ws of this.open) ws.terminate();
  }
}

/** Both the HTTP connections and the realtime sockets of a run, swept together. */
export function bothSweepers(a: Sweeper, b: Sweeper): Sweeper {
  return {
    async sweep(reason) {
      const [x, y] = await Promise.all([a.sweep(reason), b.sweep(reason)]);
      return { forcedSockets: x.forcedSockets + y.forcedSockets };
    },
    hurry() {
      a.hurry();
      b.hurry();
    },
  };
}
