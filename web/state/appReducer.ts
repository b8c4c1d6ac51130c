/**
 * The whole client state and its pure reducer: connection state, the light
 * state of active runs (from the snapshot), and the detailed models of the
 * runs the user is looking at (from deltas and REST replays).
 */
import { assertNever, type RunState, type SeqEvent, type ServerMessage } from '../../shared/protocol/protocol.ts';
import { applyEvents } from '../../shared/runView/applyEvent.ts';
import { emptyRun, type RequestView, type RunModel } from '../../shared/runView/runModel.ts';
import { withRows } from '../../shared/runView/storedRows.ts';
import type { StoreHealth } from '../../shared/protocol/storeHealth.ts';

export type ConnectionState = 'connecting' | 'live' | 'reconnecting' | 'offline';

export interface AppState {
  connection: ConnectionState;
  /** Reconnect attempts since the last good connection. */
  reconnectAttempt: number;
  /** Protocol version announced by the server; a mismatch is shown, not hidden. */
  serverVersion: number | null;
  /** Light state of active runs: from the snapshot, kept current by deltas. */
  active: Record<string, RunState>;
  /** Detailed models of runs being watched or replayed. */
  runs: Record<string, RunModel>;
  /** Bumped when the server asks for a resync; the live client resubscribes. */
  resyncs: number;
  /** The dashboard's store as the server last said (null before it did): a banner while its database is away. */
  store: StoreHealth | null;
}

export type AppAction =
  | { type: 'server'; msg: ServerMessage }
  | { type: 'connection'; state: ConnectionState; attempt?: number }
  /** Events read over REST (replay of a stored run, or a catch-up page). */
  | { type: 'history'; runId: string; events: SeqEvent[] }
  /** Start a model for a run (so deltas for it are kept). */
  | { type: 'watch'; runId: string }
  /** Request rows read over REST, for runs with no event stream (imports). */
  | { type: 'rows'; runId: string; rows: RequestView[] }
  | { type: 'forget'; runId: string };

export const initialState: AppState = {
  connection: 'connecting',
  reconnectAttempt: 0,
  serverVersion: null,
  active: {},
  runs: {},
  resyncs: 0,
  store: null,
};

export function reduce(state: AppState, action: AppAction): AppState {
  switch (action.type) {
    case 'connection':
      return {
        ...state,
        connection: action.state,
        reconnectAttempt: action.state === 'live' ? 0 : (action.attempt ?? state.reconnectAttempt),
      };
    case 'watch':
      if (state.runs[action.runId]) return state;
      return { ...state, runs: { ...state.runs, [action.runId]: emptyRun(action.runId) } };
    case 'forget': {
      if (!state.runs[action.runId]) return state;
      const runs = { ...state.runs };
      delete runs[action.runId];
      return { ...state, runs };
    }
    case 'history':
      return withEvents(state, action.runId, action.events);
    case 'rows': {
      const m = state.runs[action.runId] ?? emptyRun(action.runId);
      // Events, when there are any, are the richer source: rows only fill a run without them.
      if (m.seq > 0) return state;
      return { ...state, runs: { ...state.runs, [action.runId]: withRows(m, action.rows) } };
    }
    case 'server':
      return reduceServer(state, action.msg);
    default:
      return assertNever(action);
  }
}

function reduceServer(state: AppState, msg: ServerMessage): AppState {
  switch (msg.type) {
    case 'hello':
      return { ...state, serverVersion: msg.v };
    case 'snapshot': {
      const active: Record<string, RunState> = {};
      for (const r of msg.runs) active[r.runId] = r;
      return { ...state, active };
    }
    case 'deltas':
      return withEvents(state, msg.runId, msg.events);
    case 'resync':
      return { ...state, resyncs: state.resyncs + 1 };
    case 'store':
      return { ...state, store: msg.health };
    case 'run.removed': {
      const active = { ...state.active };
      const runs = { ...state.runs };
      delete active[msg.runId];
      delete runs[msg.runId];
      return { ...state, active, runs };
    }
    default:
      return assertNever(msg);
  }
}

function withEvents(state: AppState, runId: string, events: SeqEvent[]): AppState {
  const before = state.runs[runId] ?? emptyRun(runId);
  const model = applyEvents(before, events);
  const next: AppState =
    model === before && state.runs[runId] ? state : { ...state, runs: { ...state.runs, [runId]: model } };
  const light = state.active[runId];
  if (!light) return next;
  return { ...next, active: { ...next.active, [runId]: lightFromModel(light, model) } };
}

/** Keep an active run's light state current from its detailed model. */
function lightFromModel(prev: RunState, m: RunModel): RunState {
  if (m.seq <= prev.seq) return prev;
  return {
    ...prev,
    seq: m.seq,
    status: m.status === 'unknown' ? prev.status : m.status,
    counts: m.counts,
    inFlight: m.inFlight,
    breaker: { tripped: m.breaker.tripped, cause: m.breaker.cause, stoppedBy: m.breaker.stoppedBy },
    verdict: m.verdict ?? prev.verdict,
    // Who interrupted the run (`run.status`): the light state is what the console shows before the detail loads.
    ...(m.interruptCause ? { interruptCause: m.interruptCause } : {}),
  };
}
