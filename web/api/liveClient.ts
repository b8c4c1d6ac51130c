/**
 * The only WebSocket user in the web UI. It connects to /ws, feeds every
 * server message into the store, subscribes to the runs being watched from
 * the last seq the store has (so a reconnect resumes without duplicated or
 * missing events), resubscribes when the store sees a gap or the server asks
 * for a resync, and reconnects with bounded exponential backoff.
 */
import type { ClientMessage, ServerMessage } from '../../shared/protocol.ts';
import type { RunStore } from '../state/runStore.ts';

/** The subset of the browser WebSocket API used here (the `ws` package fits it too, for tests). */
export interface SocketLike {
  readyState: number;
  onopen: ((ev: unknown) => void) | null;
  onmessage: ((ev: { data: unknown }) => void) | null;
  onclose: ((ev: unknown) => void) | null;
  onerror: ((ev: unknown) => void) | null;
  send(data: string): void;
  close(): void;
}

export interface LiveClientOptions {
  url: string;
  store: RunStore;
  createSocket?: (url: string) => SocketLike;
  /** First retry delay; doubles per attempt up to `maxDelayMs`. */
  baseDelayMs?: number;
  maxDelayMs?: number;
  /** Attempts before the indicator says offline (it still retries, at `maxDelayMs`). */
  offlineAfter?: number;
  /** Clock for the resubscribe rate limit (injected by tests). */
  now?: () => number;
}

export interface LiveClient {
  start(): void;
  stop(): void;
  /** Keep a run's model current; returns the unwatch function. */
  watch(runId: string): () => void;
  /** Retry at once (the indicator's "reconnect" button). */
  reconnectNow(): void;
}

const OPEN = 1;

export function createLiveClient(opts: LiveClientOptions): LiveClient {
  const { store, url } = opts;
  const base = opts.baseDelayMs ?? 250;
  const max = opts.maxDelayMs ?? 5000;
  const offlineAfter = opts.offlineAfter ?? 8;
  const now = opts.now ?? Date.now;
  const createSocket = opts.createSocket ?? ((u: string) => new WebSocket(u) as unknown as SocketLike);
  const watched = new Map<string, number>(); // runId → watcher count
  const lastResubscribe = new Map<string, number>();
  let socket: SocketLike | null = null;
  let timer: ReturnType<typeof setTimeout> | null = null;
  let attempt = 0;
  let stopped = true;
  let resyncsSeen = store.getSnapshot().resyncs;

  const send = (m: ClientMessage) => {
    if (socket && socket.readyState === OPEN) socket.send(JSON.stringify(m));
  };
  const subscribe = (runId: string) => {
    lastResubscribe.set(runId, now());
    send({ type: 'subscribe', runId, afterSeq: store.getSnapshot().runs[runId]?.seq ?? 0 });
  };

  function onMessage(data: unknown): void {
    let msg: ServerMessage;
    try {
      msg = JSON.parse(typeof data === 'string' ? data : String(data)) as ServerMessage;
    } catch {
      return; // A frame we cannot read is dropped; the seq check will notice what it carried.
    }
    if (msg.type === 'hello') {
      attempt = 0;
      store.dispatch({ type: 'connection', state: 'live' });
    }
    store.dispatch({ type: 'server', msg });
    const s = store.getSnapshot();
    if (s.resyncs !== resyncsSeen) {
      resyncsSeen = s.resyncs;
      for (const id of watched.keys()) subscribe(id);
    } else if (msg.type === 'deltas' && watched.has(msg.runId)) {
      const m = s.runs[msg.runId];
      // A gap (events past a missing seq) is filled by asking again from our last seq, at most twice a second.
      if (
        m &&
        (m.needsResync || Object.keys(m.pending).length > 0) &&
        now() - (lastResubscribe.get(msg.runId) ?? 0) > 500
      ) {
        subscribe(msg.runId);
      }
    }
  }

  function connect(): void {
    if (stopped) return;
    const ws = createSocket(url);
    socket = ws;
    ws.onopen = () => {
      for (const id of watched.keys()) subscribe(id);
    };
    ws.onmessage = (ev) => {
      if (socket === ws) onMessage(ev.data);
    };
    ws.onerror = () => {
      /* onclose follows; it decides what to do */
    };
    ws.onclose = () => {
      if (socket !== ws) return;
      socket = null;
      if (stopped) return;
      attempt++;
      store.dispatch({ type: 'connection', state: attempt > offlineAfter ? 'offline' : 'reconnecting', attempt });
      const delay = Math.min(max, base * 2 ** (attempt - 1)) * (0.8 + Math.random() * 0.4);
      timer = setTimeout(() => {
        timer = null;
        connect();
      }, delay);
    };
  }

  return {
    start() {
      if (!stopped) return;
      stopped = false;
      connect();
    },
    stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      timer = null;
      const ws = socket;
      socket = null;
      ws?.close();
    },
    watch(runId) {
      store.dispatch({ type: 'watch', runId });
      const n = watched.get(runId) ?? 0;
      watched.set(runId, n + 1);
      if (n === 0) subscribe(runId);
      return () => {
        const left = (watched.get(runId) ?? 1) - 1;
        if (left > 0) {
          watched.set(runId, left);
          return;
        }
        watched.delete(runId);
        send({ type: 'unsubscribe', runId });
      };
    },
    reconnectNow() {
      if (stopped || socket) return;
      if (timer) clearTimeout(timer);
      timer = null;
      connect();
    },
  };
}

/** ws:// or wss:// URL of /ws on the page's own origin. */
export function defaultLiveUrl(loc: { protocol: string; host: string }): string {
  return `${loc.protocol === 'https:' ? 'wss' : 'ws'}://${loc.host}/ws`;
}
