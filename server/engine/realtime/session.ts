/**
 * Realtime sessions of a run (docs/design.md#realtime): prompts are grouped
 * into sessions of `--seed-tts-turns-per-session` consecutive turns (as
 * vLLM-Omni's Seed-TTS dataset groups its rows), each session one WebSocket
 * opened by its first turn and closed after its last. A turn waits for the
 * previous turn of its session to end before it starts (its clock starts
 * then); a failed turn ends the session, and its later turns fail at once
 * without sending. Each turn's timings stay here for the per-turn and
 * per-session metrics (shared/metrics/realtime.ts).
 */
import type { EffectiveTimeouts } from '../../../shared/config/timeouts.ts';
import type { RealtimeTurnTiming } from '../../../shared/metrics/realtime.ts';
import type { ConnectionFailure, RealtimeConnection, RealtimeSockets } from '../transport/index.ts';

export interface RealtimeTarget {
  sockets: RealtimeSockets;
  /** ws(s)://host/v1/realtime?model=… */
  url: string;
  headers: Record<string, string>;
  limits: EffectiveTimeouts;
  now: () => number;
  maxFrameBytes: number;
  /** Bytes one turn may receive, frames of any type (docs/design.md#peer-bounds): past it the turn fails, REQ_BUDGET. */
  budgetBytes: number;
  /** The `session.update` session object for a session (a native turn's session carries the turn's text). */
  sessionConfig: (session: RealtimeSession, job: TurnJob) => Record<string, unknown>;
  /** Upstream's newest tts flow (native.ts): a session per turn, seeded with its text, answered over silence. */
  native: boolean;
}

/** Duplex input of one turn: PCM16 at the session's input rate, with the silent tail server VAD needs. */
export interface DuplexInput {
  pcm: Buffer;
  /** Bytes of speech before the silent tail (the end of speech is the timing origin). */
  contentBytes: number;
  sampleRateHz: number;
  trigger: 'explicit' | 'vad';
}

export interface TurnJob {
  index: number;
  requestId: string;
  promptLen: number;
  text: string;
  /** This turn's place in its session (0-based). */
  turn: number;
  lastTurn: boolean;
  input?: DuplexInput;
}

/** A turn's receive times (shared/metrics/realtime.ts reads them for the duplex_* keys). */
export type TurnTiming = RealtimeTurnTiming;

export class RealtimeSession {
  conn: RealtimeConnection | null = null;
  opening = false;
  ended: ConnectionFailure | null = null;
  /** The server's session id once `session.created` names it. */
  serverId: string | null = null;
  readonly timings = new Map<number, TurnTiming>();
  /** Each started turn's end (by its place in the session): the next turn starts after it. */
  readonly turnEnds = new Map<number, Promise<void>>();

  constructor(readonly id: string) {}

  end(failure: ConnectionFailure): void {
    this.ended ??= failure;
    this.conn?.terminate();
  }

  close(): void {
    this.conn?.close();
  }
}

export class RealtimeSessions {
  private readonly sessions = new Map<number, RealtimeSession>();

  constructor(
    readonly turnsPerSession: number,
    private readonly sessionIdOf: (group: number) => string,
  ) {}

  /** The session turn `index` belongs to and its place there. */
  of(index: number, n: number): { session: RealtimeSession; turn: number; lastTurn: boolean } {
    const group = Math.floor(index / this.turnsPerSession);
    let session = this.sessions.get(group);
    if (!session) this.sessions.set(group, (session = new RealtimeSession(this.sessionIdOf(group))));
    const turn = index % this.turnsPerSession;
    return { session, turn, lastTurn: turn === this.turnsPerSession - 1 || index === n - 1 };
  }

  /** A session of one turn outside the run's grouping (a ready check, a warm-up request). */
  standalone(id: string): { session: RealtimeSession; turn: number; lastTurn: boolean } {
    return { session: new RealtimeSession(id), turn: 0, lastTurn: true };
  }

  /** Runs turn `turn` after the session's previous turn ended (whatever its end), whichever was dispatched first. */
  inOrder<T>(session: RealtimeSession, turn: number, fn: () => Promise<T>): Promise<T> {
    const run = this.endOf(session, turn - 1).then(fn);
    const settled = run.then(
      () => undefined,
      () => undefined,
    );
    this.resolvers.get(session)?.get(turn)?.(settled);
    if (!session.turnEnds.has(turn)) session.turnEnds.set(turn, settled);
    return run;
  }

  private readonly resolvers = new Map<RealtimeSession, Map<number, (p: Promise<void>) => void>>();

  /** The end of turn `turn` (resolved at once for turn -1; a placeholder until that turn is dispatched). */
  private endOf(session: RealtimeSession, turn: number): Promise<void> {
    if (turn < 0) return Promise.resolve();
    const known = session.turnEnds.get(turn);
    if (known) return known;
    const waiting = new Promise<void>((resolve) => {
      let byTurn = this.resolvers.get(session);
      if (!byTurn) this.resolvers.set(session, (byTurn = new Map<number, (p: Promise<void>) => void>()));
      byTurn.set(turn, (p) => void p.then(resolve));
    });
    session.turnEnds.set(turn, waiting);
    return waiting;
  }

  /** Every turn's timings in dataset order (absent for a turn never started). */
  timings(n: number): (TurnTiming | null)[] {
    const out: (TurnTiming | null)[] = new Array<TurnTiming | null>(n).fill(null);
    for (const s of this.sessions.values()) for (const [i, t] of s.timings) out[i] = t;
    return out;
  }
}
