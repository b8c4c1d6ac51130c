/**
 * The blocked-phase view: one card per stall report. A watchdog report
 * (stall/StallCard) shows the Code2Wav phase strip with the stuck phase lit
 * and its age counting up while the run is live, the phase details, the owner
 * thread's stack frames (copyable), the affected requests (click to find them
 * on the timeline), and whether it recovered. A py-spy capture of the server
 * (stall/ServerStacksCard) lights the inferred phase, says from which frame,
 * and lists processes and threads.
 */
import { isServerStacks, stallKey } from '../../shared/stallReport.ts';
import type { StallRecord } from '../../shared/runView/runModel.ts';
import { stallAgeS } from '../../shared/runView/stalls.ts';
import { ServerStacksCard } from './stall/ServerStacksCard.tsx';
import { StallCard, type StallModel } from './stall/StallCard.tsx';

export interface BlockedPhaseViewProps {
  stalls: readonly StallRecord[];
  model: StallModel;
  nowWallMs: number;
  onFindRequest: (requestId: string) => void;
  /** The run is over (also when the model saw no run.status, e.g. reports read from the store). */
  ended?: boolean;
}

export function BlockedPhaseView({ stalls, model, nowWallMs, onFindRequest, ended }: BlockedPhaseViewProps) {
  if (stalls.length === 0) return null;
  return (
    <section className="blocked" aria-label="Blocked phases" data-testid="blocked-view">
      <h2>Blocked Code2Wav phase{stalls.length > 1 ? 's' : ''}</h2>
      {stalls.map((s) =>
        isServerStacks(s.report) ? (
          <ServerStacksCard
            key={`py-spy:${s.report.capture}`}
            report={s.report}
            facts={{ runId: model.runId, ageS: stallAgeS(s, model, nowWallMs), indexById: model.indexById }}
            onFindRequest={onFindRequest}
          />
        ) : (
          <StallCard
            key={`${stallKey(s.report).workerId}:${stallKey(s.report).opId}`}
            stall={s}
            report={s.report}
            model={model}
            nowWallMs={nowWallMs}
            onFindRequest={onFindRequest}
            ended={ended || model.finishedT !== null}
          />
        ),
      )}
    </section>
  );
}
