/**
 * What the CI outputs need from a run's events, kept as they pass: the first structural timeout, the server
 * stacks the bench captured (py-spy) that are stall evidence, and what the server still answered at the stall.
 * The engine's events are the one place these come typed; the result file holds them only as its JSON.
 */
import type { BenchEvent } from '../../../shared/protocol/protocol.ts';
import { isStallEvidence, type ServerStacksReport } from '../../../shared/stalls/stallReport.ts';
import type { LivenessReport } from '../../../shared/stalls/liveness.ts';

export interface FirstTimeoutSeen {
  index: number;
  requestId: string;
  kind: string;
}

export class RunEvidence {
  firstTimeout: FirstTimeoutSeen | null = null;
  /** Captures that read at least one thread (a capture that read nothing is a warning, not a stall). */
  readonly stacks: ServerStacksReport[] = [];
  liveness: LivenessReport | null = null;

  onEvent(e: BenchEvent): void {
    switch (e.type) {
      case 'request.timed_out':
        this.firstTimeout ??= { index: e.outcome.index, requestId: e.outcome.requestId, kind: e.kind };
        return;
      case 'server.stacks':
        if (isStallEvidence(e.report)) this.stacks.push(e.report);
        return;
      case 'server.liveness':
        this.liveness ??= e.report;
        return;
      default:
        return;
    }
  }

  /** Whether the run has stall evidence by the board's rule: a stack, or a structural timeout. */
  get stalled(): boolean {
    return this.firstTimeout !== null || this.stacks.length > 0;
  }
}
