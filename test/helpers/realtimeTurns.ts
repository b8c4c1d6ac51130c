/** Drives the realtime attempt the way the request runner does (one record per turn, dispatch order). */
import { newRecord, type RequestRecord } from '#server/engine/records/record.ts';
import { Cancellation } from '#server/engine/transport/http/cancellation.ts';
import { realtimeAttempt, realtimeSocketsOf, type RealtimeBody } from '#server/engine/realtime/backend.ts';
import type { TurnResult } from '#server/engine/realtime/turn.ts';
import type { RealtimeTurnTiming } from '#shared/metrics/realtime.ts';
import { effectiveTimeouts } from '#shared/config/timeouts.ts';
import { MODEL } from './code2wav.ts';

export interface TurnOutcome {
  record: RequestRecord;
  result: TurnResult;
  timing: RealtimeTurnTiming | null;
  timeouts: string[];
}

export function realtimeRun(
  url: string,
  o: { totalS?: number; firstByteS?: number; idleS?: number; maxFrameBytes?: number } = {},
) {
  const target = {
    origin: new URL(url).origin,
    path: '/v1/realtime',
    limits: effectiveTimeouts({ totalS: o.totalS ?? 10, firstByteS: o.firstByteS, idleS: o.idleS }),
    now: () => performance.now() / 1000,
    maxEventBytes: o.maxFrameBytes,
  };
  const cancels: Cancellation[] = [];
  const body = (text: string, n: number, turnsPerSession: number, extra: Partial<RealtimeBody> = {}): string =>
    JSON.stringify({
      prefix: 't-',
      runId: 't',
      numPrompts: n,
      turnsPerSession,
      model: MODEL,
      text,
      instructions: null,
      extraBody: {},
      ...extra,
    } satisfies RealtimeBody);
  async function turn(
    index: number,
    text: string,
    n: number,
    k: number,
    extra: Partial<RealtimeBody> = {},
  ): Promise<TurnOutcome> {
    const record = newRecord(1, target.now());
    record.attempts = 1;
    const cancel = new Cancellation();
    cancels.push(cancel);
    const timeouts: string[] = [];
    const result = await realtimeAttempt(
      target,
      { 'content-type': 'application/json', 'x-request-id': `t-${index}` },
      body(text, n, k, extra),
      record,
      cancel,
      { onTimeout: (e) => timeouts.push(e.kind), onMessage: () => undefined },
    );
    const timing = (record as RequestRecord & { realtime?: RealtimeTurnTiming }).realtime ?? null;
    return { record, result, timing, timeouts };
  }
  return { target, turn, cancels, sockets: () => realtimeSocketsOf(target) };
}
