/**
 * One watchdog report in the blocked-phase view: the phase strip with the
 * stuck phase lit and its age counting up while the run is live, the phase
 * details and affected requests, the owner thread's stack, and whether the op
 * recovered.
 */
import type { WatchdogStallReport } from '../../../shared/stalls/stallReport.ts';
import type { RunModel, StallRecord } from '../../../shared/runView/runModel.ts';
import { stallAgeS } from '../../../shared/runView/stalls.ts';
import { OwnerStack } from './OwnerStack.tsx';
import { PhaseStrip } from './PhaseStrip.tsx';
import { StallDetails } from './StallDetails.tsx';

/** What a stall card reads of the run: its id and clock (for Copy and the age) and the request indexes. */
export type StallModel = Pick<RunModel, 'runId' | 'startedAtMs' | 'finishedT' | 'indexById'>;

function stateText(stall: StallRecord, ended: boolean): string {
  if (stall.recovered) return `recovered after ${stall.recovered.stalledS.toFixed(1)} s`;
  return ended ? 'blocked when the run ended' : 'still blocked';
}

export function StallCard({
  stall,
  report: r,
  model,
  nowWallMs,
  onFindRequest,
  ended,
}: {
  stall: StallRecord;
  report: WatchdogStallReport;
  model: StallModel;
  nowWallMs: number;
  onFindRequest: (id: string) => void;
  ended: boolean;
}) {
  const age = stallAgeS(stall, model, nowWallMs);
  const counting = !stall.recovered && !ended;
  return (
    <article className={`stall${stall.recovered ? ' recovered' : ''}`} data-testid="stall-report" data-phase={r.phase}>
      <header className="stall-head">
        <span className="stall-title">
          {r.model} · worker {r.workerId} · op {r.opId}
        </span>
        <span className="stall-age" data-testid="stall-age" data-age-s={age.toFixed(2)} aria-live="off">
          {age.toFixed(1)} s in <strong>{r.phase}</strong>
          {counting ? ' and counting' : ''}
        </span>
        <span className={`pill ${stall.recovered ? 'pill-ok' : 'pill-bad'}`} data-testid="stall-state">
          {stateText(stall, ended)}
        </span>
      </header>
      <PhaseStrip phase={r.phase} label="Code2Wav phases" live={counting} showUnknown />
      <div className="stall-grid">
        <StallDetails report={r} indexById={model.indexById} onFindRequest={onFindRequest} />
        <OwnerStack
          report={r}
          facts={{ runId: model.runId, ageS: age, state: stateText(stall, ended), indexById: model.indexById }}
        />
      </div>
    </article>
  );
}
