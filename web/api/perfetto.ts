/**
 * "Open in Perfetto": hands a run's trace to ui.perfetto.dev by Perfetto's
 * own deep-linking protocol (perfetto.dev/docs/visualization/deep-linking-to-perfetto-ui):
 * open ui.perfetto.dev in a new tab, fetch the trace from this dashboard, post
 * 'PING' to the tab until it answers 'PONG' (its listener is up), then post
 * `{perfetto: {buffer, title, fileName}}` to that origin. The trace goes from
 * this page to that tab only, never through a server of ours or theirs.
 */

export const PERFETTO_ORIGIN = 'https://ui.perfetto.dev';
/** How long ui.perfetto.dev gets to load and answer (a cold load of the UI takes a few seconds). */
export const PERFETTO_ANSWER_MS = 30_000;
const PING_EVERY_MS = 250;

/** The subset of a window the protocol uses (a real one, or a fake in tests). */
interface PerfettoTab {
  postMessage(message: unknown, targetOrigin: string, transfer?: Transferable[]): void;
  closed?: boolean;
}

export interface PerfettoDeps {
  /** Opens the UI in a new tab; null when the browser blocked it. Called first, within the click. */
  open(url: string): PerfettoTab | null;
  fetchTrace(): Promise<ArrayBuffer>;
  /** Listens to messages posted to this page; returns the unsubscribe. */
  onMessage(handler: (e: { source: unknown; origin: string; data: unknown }) => void): () => void;
  setInterval(fn: () => void, ms: number): unknown;
  clearInterval(id: unknown): void;
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(id: unknown): void;
}

const OFFLINE_HINT =
  'download the trace (Perfetto trace) and open it at ui.perfetto.dev with "Open trace file", or with a Perfetto UI you run yourself';

/** Opens ui.perfetto.dev and hands it the trace; rejects with what to do instead when it cannot. */
export function openInPerfetto(trace: { title: string; fileName: string }, deps: PerfettoDeps): Promise<void> {
  const tab = deps.open(PERFETTO_ORIGIN);
  if (!tab)
    return Promise.reject(
      new Error(`The browser blocked the new tab: allow pop-ups for this page, or ${OFFLINE_HINT}.`),
    );
  return new Promise<void>((resolve, reject) => {
    let buffer: ArrayBuffer | null = null;
    let ready = false;
    const stop = () => {
      unlisten();
      deps.clearInterval(ping);
      deps.clearTimeout(limit);
    };
    const send = () => {
      if (!buffer || !ready) return;
      stop();
      tab.postMessage({ perfetto: { buffer, title: trace.title, fileName: trace.fileName } }, PERFETTO_ORIGIN, [
        buffer,
      ]);
      resolve();
    };
    const fail = (message: string) => {
      stop();
      reject(new Error(message));
    };
    const unlisten = deps.onMessage((e) => {
      if (e.source !== tab || e.origin !== PERFETTO_ORIGIN || e.data !== 'PONG') return;
      ready = true;
      send();
    });
    const ping = deps.setInterval(() => tab.postMessage('PING', PERFETTO_ORIGIN), PING_EVERY_MS);
    const limit = deps.setTimeout(
      () => fail(`ui.perfetto.dev did not answer within ${PERFETTO_ANSWER_MS / 1000} s (offline?): ${OFFLINE_HINT}.`),
      PERFETTO_ANSWER_MS,
    );
    deps.fetchTrace().then(
      (b) => {
        buffer = b;
        send();
      },
      (e: unknown) => fail(`The trace could not be read: ${e instanceof Error ? e.message : String(e)}.`),
    );
  });
}

/** The browser's own window, fetch and timers. */
export function browserPerfettoDeps(traceUrl: string): PerfettoDeps {
  return {
    open: (url) => window.open(url, '_blank'),
    async fetchTrace() {
      const res = await fetch(traceUrl);
      if (!res.ok) throw new Error(`HTTP ${res.status}`);
      return res.arrayBuffer();
    },
    onMessage(handler) {
      const h = (e: MessageEvent) => handler({ source: e.source, origin: e.origin, data: e.data });
      window.addEventListener('message', h);
      return () => window.removeEventListener('message', h);
    },
    setInterval: (fn, ms) => window.setInterval(fn, ms),
    clearInterval: (id) => window.clearInterval(id as number),
    setTimeout: (fn, ms) => window.setTimeout(fn, ms),
    clearTimeout: (id) => window.clearTimeout(id as number),
  };
}
