/**
 * The only WebSocket user in the web UI. It connects to /ws, feeds every
 * server message into the store, subscribes to the runs being watched from
 * the last seq the store has (so a reconnect resumes without duplicated or
 * missing events), resubscribes when the store sees a gap or the server asks
 * for a resync (the bookkeeping is in liveSubscriptions.ts), and reconnects
 * with bounded exponential backoff.
 */
import type { ClientMessage, ServerMessage } from '../../shared/protocol/protocol.ts';
import type { RunStore } from '../state/runStore.ts';
import { createLiveSubscriptions } from './liveSubscriptions.ts';

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

/** A frame as a server message, or null when it is not JSON (the seq check will notice what it carried). */
function parseFrame(data: unknown): ServerMessage | null {
  try {
    return JSON.parse(typeof data === 'string' ? data : String(data)) as ServerMessage;
  } catch {
    return null;
  }
}

/** Bounded exponential backoff with ±20 % jitter, so reconnecting tabs do not arrive together. */
function retryDelay(attempt: number, base: number, max: number): number {
  return Math.min(max, base * 2 ** (attempt - 1)) * (0.8 + Math.random() * 0.4);
}

export function createLiveClient(opts: LiveClientOptions): LiveClient {
  const { store, url } = opts;
  const base = opts.baseDelayMs ?? 250;
  const max = opts.maxDelayMs ?? 5000;
  const offlineAfter = opts.offlineAfter ?? 8;
  const createSocket = opts.createSocket ?? ((u: string) => new WebSocket(u) as unknown as SocketLike);
  let socket: SocketLike | null = null;
  let timer: ReturnType<typeof setTimeout> | null = null;
  let attempt = 0;
  let stopped = true;

  const send = (m: ClientMessage) => {
    if (socket && socket.readyState === OPEN) socket.send(JSON.stringify(m));
  };
  const subs = createLiveSubscriptions(store, send, opts.now ?? Date.now);

  function onMessage(data: unknown): void {
    const msg = parseFrame(data);
    if (!msg) return;
    if (msg.type === 'hello') {
      attempt = 0;
      store.dispatch({ type: 'connection', state: 'live' });
    }
    store.dispatch({ type: 'server', msg });
    subs.afterMessage(msg);
  }

  function connect(): void {
    if (stopped) return;
    const ws = createSocket(url);
    socket = ws;
    ws.onopen = () => subs.subscribeAll();
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
      timer = setTimeout(
        () => {
          timer = null;
          connect();
        },
        retryDelay(attempt, base, max),
      );
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
    watch: (runId) => subs.watch(runId),
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
