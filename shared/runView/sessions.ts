/**
 * Realtime sessions as timeline rows (docs/design.md#realtime): a run whose
 * `run.started` says `turnsPerSession` groups its requests, `k` consecutive
 * ones at a time, into the turns of one WebSocket session. Each session is
 * one row; each turn a segment from when it could start (its send, or its
 * session's previous turn's end, whichever is later: a turn waits for the
 * one before it) to its end, with its first audio and its end state. Pure
 * data for the web component to draw.
 */
import type { RequestLifecycle } from '../requests/requestLifecycle.ts';
import type { RequestStatus } from '../types.ts';

export interface SessionTurn {
  /** The request's index in the run. */
  index: number;
  /** Its place in the session, from 0. */
  turn: number;
  startT: number | null;
  firstAudioT: number | null;
  endT: number | null;
  status: RequestStatus;
}

export interface SessionRow {
  session: number;
  turns: SessionTurn[];
}

export function sessionRows(requests: readonly RequestLifecycle[], turnsPerSession: number): SessionRow[] {
  const k = Math.max(1, Math.floor(turnsPerSession));
  const rows: SessionRow[] = [];
  for (let first = 0; first < requests.length; first += k) {
    const turns: SessionTurn[] = [];
    let prevEnd: number | null = null;
    for (let i = first; i < Math.min(first + k, requests.length); i++) {
      const r = requests[i];
      const startT = r.sentT === null ? null : prevEnd !== null && prevEnd > r.sentT ? prevEnd : r.sentT;
      turns.push({
        index: r.index,
        turn: i - first,
        startT,
        firstAudioT: r.firstAudioT,
        endT: r.endT,
        status: r.status,
      });
      prevEnd = r.endT;
    }
    rows.push({ session: first / k, turns });
  }
  return rows;
}
