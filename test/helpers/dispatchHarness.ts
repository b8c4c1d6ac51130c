/** Builds a runDispatch input against a test server (shared by the dispatch tests). */
import { RunConnections } from '#server/engine/transport/http/dispatcher.ts';
import type { ConnectionMode } from '#shared/types.ts';
import { effectiveTimeouts } from '#shared/config/timeouts.ts';
import { RunEvents } from '#server/engine/records/events.ts';
import type { DispatchInput } from '#server/engine/dispatch/dispatch.ts';
import type { BenchEvent } from '#shared/protocol/protocol.ts';

export interface Harness {
  input: DispatchInput;
  /** The run's connections; `agent.destroy()` closes them as the engine does at the end of a run. */
  connections: RunConnections;
  agent: { destroy(): Promise<unknown> };
  events: BenchEvent[];
}

export function harness(
  url: string,
  offsets: number[],
  o: {
    maxConcurrency?: number | null;
    failFast?: boolean;
    totalS?: number;
    firstByteS?: number;
    idleS?: number;
    interrupt?: AbortSignal;
    connectionMode?: ConnectionMode;
    skipPoolDestroy?: boolean;
  } = {},
): Harness {
  const connections = new RunConnections(new URL(url).origin, {
    maxConcurrency: o.maxConcurrency ?? null,
    mode: o.connectionMode ?? 'keep_alive',
    skipPoolDestroy: o.skipPoolDestroy,
  });
  const agent = { destroy: () => connections.sweep(null) };
  const events: BenchEvent[] = [];
  const runEvents = new RunEvents((e) => events.push(e));
  runEvents.startClock();
  const id = (i: number): string => `t-${i}`;
  const input: DispatchInput = {
    connections,
    target: {
      dispatcher: connections,
      perRequest: connections.perRequest,
      origin: new URL(url).origin,
      path: '/v1/chat/completions',
      limits: effectiveTimeouts({ totalS: o.totalS ?? 5, firstByteS: o.firstByteS, idleS: o.idleS }),
      now: () => performance.now() / 1000,
    },
    events: runEvents,
    offsets,
    maxConcurrency: o.maxConcurrency ?? null,
    failFast: o.failFast ?? false,
    prepare: async (i) => ({
      index: i,
      requestId: id(i),
      headers: { 'content-type': 'application/json', 'x-request-id': id(i) },
      body: '{}',
      promptLen: 1,
    }),
    requestId: id,
    promptLen: () => 1,
    interrupt: o.interrupt,
  };
  return { input, connections, agent, events };
}

export const indexOf = (requestId: string): number => Number(requestId.split('-').pop());
