/**
 * A run probe watches a run from beside the engine (server stacks:
 * docs/design.md#server-stacks). The engine only calls these hooks; it never waits on a
 * probe during the dispatch, so a probe can never delay the breaker's stop
 * or the cleanup. A probe's `finish` is awaited after every socket is closed
 * and before the result is written; it must settle within its own limit.
 * Probes are plug-ins: the caller (the CLI, the dashboard's run manager)
 * builds them and hands them in EngineOptions.probes; the engine imports none.
 */
import type { BenchEvent } from '../../../shared/protocol/protocol.ts';
import type { TimeoutReport } from '../stopRules/breaker.ts';
import type { Unstamped } from '../records/events.ts';

export interface ProbeContext {
  /** Puts an event into the run (stamped on the run's clock). */
  emit(e: Unstamped): void;
  log(line: string): void;
}

export interface RunProbe {
  /** The run's clock started and `run.started` was emitted. */
  start(ctx: ProbeContext): void;
  /** Every engine event, after the run's subscriber. Must be cheap. */
  onEvent(e: BenchEvent): void;
  /** Synchronously from a request's timer, for every structural timeout. Must be cheap. */
  onTimeout(r: TimeoutReport): void;
  /** Stops watching and settles what is in progress; returns keys to add to the result. */
  finish(): Promise<Record<string, unknown>>;
}

/** Finishes every probe; one that fails is logged and adds nothing. */
export async function finishProbes(
  probes: readonly RunProbe[],
  log: (line: string) => void,
): Promise<Record<string, unknown>> {
  const out: Record<string, unknown> = {};
  for (const r of await Promise.allSettled(probes.map((p) => p.finish()))) {
    if (r.status === 'fulfilled') Object.assign(out, r.value);
    else log(`a run probe failed: ${(r.reason as Error)?.message ?? String(r.reason)}`);
  }
  return out;
}
