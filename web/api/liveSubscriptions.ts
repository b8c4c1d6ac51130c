/**
 * Which runs the live client follows, and when it asks the server for them
 * again. It never touches the socket: the live client hands it `send` (a no-op
 * while no socket is open) and tells it of every message the store has taken.
 */
import type { ClientMessage, ServerMessage } from '../../shared/protocol/protocol.ts';
import type { RunStore } from '../state/runStore.ts';

/** A gap in a run's events is asked for again at most this often. */
const RESUBSCRIBE_GAP_MS = 500;

interface LiveSubscriptions {
  /** Subscribe to every watched run again from the store's last seq (a new socket). */
  subscribeAll(): void;
  /** After the store took `msg`: resubscribe on a resync, or on a gap in a watched run. */
  afterMessage(msg: ServerMessage): void;
  /** Keep a run's model current; returns the unwatch function. */
  watch(runId: string): () => void;
}

export function createLiveSubscriptions(
  store: RunStore,
  send: (m: ClientMessage) => void,
  now: () => number,
): LiveSubscriptions {
  const watched = new Map<string, number>(); // runId → watcher count
  const lastResubscribe = new Map<string, number>();
  let resyncsSeen = store.getSnapshot().resyncs;

  const subscribe = (runId: string) => {
    lastResubscribe.set(runId, now());
    send({ type: 'subscribe', runId, afterSeq: store.getSnapshot().runs[runId]?.seq ?? 0 });
  };
  const subscribeAll = () => {
    for (const id of watched.keys()) subscribe(id);
  };

  return {
    subscribeAll,
    afterMessage(msg) {
      const s = store.getSnapshot();
      if (s.resyncs !== resyncsSeen) {
        resyncsSeen = s.resyncs;
        subscribeAll();
      } else if (msg.type === 'deltas' && watched.has(msg.runId)) {
        const m = s.runs[msg.runId];
        // A gap (events past a missing seq) is filled by asking again from our last seq, at most twice a second.
        if (
          m &&
          (m.needsResync || Object.keys(m.pending).length > 0) &&
          now() - (lastResubscribe.get(msg.runId) ?? 0) > RESUBSCRIBE_GAP_MS
        ) {
          subscribe(msg.runId);
        }
      }
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
  };
}
