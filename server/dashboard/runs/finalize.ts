/**
 * Ends a live run the same way whoever ran it (run manager, CLI report,
 * shutdown): a closing `run.status` event, every queued event committed, the
 * run row updated with its final status, verdict, summary and result, and
 * the hub told it is no longer live. The returned promise settles when the
 * row is written (at once for the embedded store); it never rejects: a
 * failure is reported to `onError` (default stderr) — whoever ended the run
 * has nothing better to do with it.
 */
import type { RunSummary } from '../../../shared/protocol/protocol.ts';
import type { InterruptCause, RunStatus, Verdict } from '../../../shared/types.ts';
import type { Hub } from '../hub/hub.ts';

export interface FinalOutcome {
  status: RunStatus;
  summary?: RunSummary | null;
  result?: Record<string, unknown> | null;
  /** The result was stored in this many parts (runs.writeResultPart), instead of whole in `result`. */
  resultParts?: number;
  error?: string | null;
  message?: string;
  /** Who interrupted the run, when it ends `interrupted` and the dashboard knows (a reported run marked abandoned). */
  interruptCause?: InterruptCause;
  now?: number;
  onError?: (runId: string, e: Error) => void;
}

export function finalizeRun(hub: Hub, runId: string, o: FinalOutcome): Promise<void> {
  const tracker = hub.tracker(runId);
  if (!tracker) return Promise.resolve();
  const startedAt = tracker.state.startedAtMs;
  const now = o.now ?? Date.now();
  hub.append(runId, {
    type: 'run.status',
    t: startedAt ? now - startedAt : 0,
    status: o.status,
    ...((o.message ?? o.error) ? { message: o.message ?? o.error ?? undefined } : {}),
    ...(o.interruptCause ? { interruptCause: o.interruptCause } : {}),
  });
  const verdict: Verdict | null =
    o.summary?.verdict ??
    tracker.state.verdict ??
    (o.status === 'errored' ? 'errored' : o.status === 'interrupted' ? 'interrupted' : null);
  tracker.state.verdict = verdict;
  const state = hub.close(runId);
  return hub.store.runWrites
    .update(runId, {
      status: o.status,
      verdict,
      startedAtMs: startedAt,
      finishedAtMs: now,
      summary: o.summary ?? undefined,
      result: o.result ?? undefined,
      resultParts: o.resultParts,
      error: o.error ?? undefined,
      state,
      lastSeq: state?.seq,
    })
    .catch((e: unknown) => (o.onError ?? logFailure)(runId, e as Error));
}

function logFailure(runId: string, e: Error): void {
  process.stderr.write(`stallscope: the end of run ${runId} could not be stored: ${e.message}\n`);
}
