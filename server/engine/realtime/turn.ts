/**
 * One realtime turn (one prompt, one request row; docs/design.md#realtime):
 * on its session's WebSocket (opened by the session's first turn: the
 * upgrade, `session.update`, then `session.created`/`session.updated`), the
 * turn sends its input (`conversation.item.create` then `response.create`,
 * or for duplex the paced audio of input.ts), reads the response's deltas
 * into the request record, and ends at `response.done`, an `error` event,
 * the socket failing, or one of the structural timers (the same
 * AttemptTimers as an HTTP attempt: `total` from the turn's start,
 * `first_byte` until the response's first event, `idle` between frames),
 * classified as an HTTP attempt's. There is no retry, as in vLLM-Omni's
 * realtime client. The playback of the turn's audio is acknowledged
 * (`playback.ack`) before the next turn.
 */
import { markFailed, type RequestRecord } from '../records/record.ts';
import {
  AttemptSignal,
  AttemptTimers,
  classifyFailure,
  RealtimeConnection,
  type Cancellation,
  type AttemptHooks,
  type FailureClass,
  type ConnectionFailure,
  type RealtimeEvent,
  overBudget,
} from '../transport/index.ts';

/** How a turn ended, as an HTTP attempt's result (the runner never retries a turn: no `transport`). */
export type TurnResult = { type: 'ok' } | { type: 'failed' } | FailureClass;
import type { RealtimeSession, RealtimeTarget, TurnJob } from './session.ts';
import { TurnReader } from './turnReader.ts';
import { sendDuplexInput } from './input.ts';
import { NATIVE_CLOSE_WAIT_MS, streamSilence } from './native.ts';

export async function runRealtimeTurn(
  target: RealtimeTarget,
  session: RealtimeSession,
  job: TurnJob,
  record: RequestRecord,
  cancel: Cancellation,
  hooks: AttemptHooks & { stopped?: () => unknown },
): Promise<TurnResult> {
  // A stopped run's waiting turn is cancelled (not failed), whatever ended its session: the breaker stops
  // the run synchronously but cancels its requests a turn later (docs/design.md#retries), so ask the run too.
  const stop = cancel.aborted ? cancel.reason : hooks.stopped?.();
  if (stop !== undefined) return cancelled(record, stop);
  if (session.ended) {
    markFailed(record, 'REQ_WS_SESSION_ENDED', `session ${session.id}: ${session.ended.detail}`);
    return { type: 'failed' };
  }
  const ctrl = new AttemptSignal();
  cancel.bind((reason) => ctrl.abort(reason));
  const timers = new AttemptTimers(ctrl, target.limits, (e) => hooks.onTimeout?.(e));
  const reader = new TurnReader(record, job, session, hooks, () => timers.headersReceived());
  // Set in the ready callback; the assertion keeps TypeScript from narrowing it to null here.
  let silence = null as Promise<void> | null;
  try {
    const end = await new Promise<ConnectionFailure | 'done'>((resolve) => {
      ctrl.onAbort(() => resolve({ code: 'REQ_CANCELLED', detail: 'aborted' }));
      reader.settle = resolve;
      const conn = session.conn ?? openSession(target, session, reader, hooks, job);
      // Every frame of the turn counts, whatever its type and whether the turn keeps it (docs/design.md#peer-bounds).
      let received = 0;
      conn.listen({
        onFrame: (bytes) => {
          timers.eventReceived();
          hooks.onBytes?.();
          received += bytes;
          if (received <= target.budgetBytes) return !reader.ended;
          if (!reader.ended) reader.fail('REQ_BUDGET', overBudget(received, target.budgetBytes));
          return false;
        },
        onEvent: (e: RealtimeEvent, ts: number) => reader.onEvent(e, ts),
        onFailure: (f) => resolve(f),
      });
      void reader.ready.then(() => {
        if (ctrl.aborted || reader.finished) return;
        reader.begin(target.now(), target.native);
        if (job.input) void sendDuplexInput(conn, job, reader, ctrl, target.now);
        else if (target.native) silence = streamSilence(conn, reader, ctrl);
        else sendTextTurn(conn, job);
      });
    });
    // As upstream's client: its silence loop sees the answer settled only between 200 ms chunks, and the playback
    // acknowledgement and the close follow that loop's end, so a native session lasts to the next chunk boundary.
    if (silence && end === 'done' && record.success) await silence;
    const conn = session.conn;
    const result = finish(target, end, record, ctrl, session, reader, job);
    // As upstream's close_session: the next utterance's session opens once this one has closed.
    if (target.native && result.type === 'ok' && conn) {
      await conn.closed(NATIVE_CLOSE_WAIT_MS);
      // Upstream's E2EL for this flow: from before the session's upgrade to after its close.
      record.latency = target.now() - record.startTime;
    }
    return result;
  } finally {
    timers.clear();
    cancel.unbind();
  }
}

function openSession(
  target: RealtimeTarget,
  session: RealtimeSession,
  reader: TurnReader,
  hooks: AttemptHooks,
  job: TurnJob,
): RealtimeConnection {
  const conn = new RealtimeConnection(target.sockets, target.url, target.headers, target.maxFrameBytes, target.now);
  session.conn = conn;
  session.opening = true;
  reader.handshaking = true;
  void conn.waitOpen().then(() => {
    hooks.onHeaders?.();
    conn.send({ type: 'session.update', session: target.sessionConfig(session, job) });
  });
  return conn;
}

function sendTextTurn(conn: RealtimeConnection, job: TurnJob): void {
  conn.send({
    type: 'conversation.item.create',
    item: { type: 'message', role: 'user', content: [{ type: 'input_text', text: job.text }] },
  });
  conn.send({ type: 'response.create', response: { metadata: { request_id: job.requestId } } });
}

function finish(
  target: RealtimeTarget,
  end: ConnectionFailure | 'done',
  record: RequestRecord,
  ctrl: AttemptSignal,
  session: RealtimeSession,
  reader: TurnReader,
  job: TurnJob,
): TurnResult {
  reader.finished = true;
  reader.writeText();
  session.conn?.listen(null);
  if (end === 'done' && record.success) {
    reader.acknowledgePlayback();
    if (job.lastTurn || target.native) session.close();
    // A native session answers one seeded text: the session's next turn opens its own (native.ts).
    if (target.native) session.conn = null;
    return { type: 'ok' };
  }
  const failure = ctrl.aborted ? null : end === 'done' ? reader.failure : end;
  session.end(failure ?? { code: 'REQ_WS_CLOSED', detail: `turn ${job.turn} did not complete` });
  if (ctrl.aborted) {
    const cls = classifyFailure(ctrl.reason, ctrl.reason);
    if (cls.type === 'timeout') {
      markFailed(record, 'REQ_TIMEOUT', (ctrl.reason as Error).message);
      return cls;
    }
    return cancelled(record, ctrl.reason);
  }
  if (failure && record.errorCode === null) markFailed(record, failure.code, failure.detail);
  return { type: 'failed' };
}

function cancelled(record: RequestRecord, reason: unknown): TurnResult {
  const cls = classifyFailure(reason, reason);
  markFailed(record, 'REQ_CANCELLED', (reason as Error).message, true);
  return cls.type === 'cancelled' ? cls : { type: 'cancelled', cause: 'interrupted' };
}
