/**
 * The blocked-phase view: one card per stall report. A watchdog report
 * (stall/StallCard) shows the Code2Wav phase strip with the stuck phase lit
 * and its age counting up while the run is live, the phase details, the owner
 * thread's stack frames (copyable), the affected requests (click to find them
 * on the timeline), and whether it recovered. A py-spy capture of the server
 * (stall/ServerStacksCard) lights the inferred phase, says from which frame,
 * and lists processes and threads. Each card carries its fingerprint
 * (stall/EvidenceFrame); the run's first structural timeout has a card of its
 * own (stall/FirstTimeoutCard).
 */
import { isServerStacks } from '../../shared/stalls/stallReport.ts';
import { reportFingerprint, reportRef, timeoutRef, type FirstTimeout } from '../../shared/stalls/stallEvidence.ts';
import type { StallRecord } from '../../shared/runView/runModel.ts';
import { EvidenceFrame } from './stall/EvidenceFrame.tsx';
import { FirstTimeoutCard } from './stall/FirstTimeoutCard.tsx';
import { stallAgeS } from '../../shared/runView/stalls.ts';
import { ServerStacksCard } from './stall/ServerStacksCard.tsx';
import { StallCard, type StallModel } from './stall/StallCard.tsx';
import { RunPlace } from './stall/runPlace.ts';

const NO_METADATA: Readonly<Record<string, string>> = {};

export interface BlockedPhaseViewProps {
  stalls: readonly StallRecord[];
  model: StallModel;
  nowWallMs: number;
  onFindRequest: (requestId: string) => void;
  /** The run is over (also when the model saw no run.status, e.g. reports read from the store). */
  ended?: boolean;
  /** The run's first structural timeout (stored), shown as evidence too. */
  firstTimeout?: FirstTimeout | null;
  /** The evidence the URL names (`w0-op3`, `capture-1`): brought into view. */
  focus?: string;
  /** Where the run ran (its metadata), for the cards' Copy and "where else it occurred". */
  metadata?: Readonly<Record<string, string>>;
}

export function BlockedPhaseView(p: BlockedPhaseViewProps) {
  const { stalls, model, nowWallMs, onFindRequest, ended, firstTimeout, focus, metadata = NO_METADATA } = p;
  if (stalls.length === 0 && !firstTimeout) return null;
  return (
    <RunPlace.Provider value={metadata}>
      <section className="blocked" aria-label="Blocked phases" data-testid="blocked-view">
        <h2>{stalls.length === 0 ? 'Stall evidence' : `Blocked Code2Wav phase${stalls.length > 1 ? 's' : ''}`}</h2>
        {stalls.map((s) => {
          const ref = reportRef(s.report);
          return (
            <EvidenceFrame key={ref} refName={ref} fp={reportFingerprint(s.report)} focused={focus === ref}>
              {isServerStacks(s.report) ? (
                <ServerStacksCard
                  report={s.report}
                  facts={{ runId: model.runId, ageS: stallAgeS(s, model, nowWallMs), indexById: model.indexById }}
                  onFindRequest={onFindRequest}
                />
              ) : (
                <StallCard
                  stall={s}
                  report={s.report}
                  model={model}
                  nowWallMs={nowWallMs}
                  onFindRequest={onFindRequest}
                  ended={ended || model.finishedT !== null}
                />
              )}
            </EvidenceFrame>
          );
        })}
        {firstTimeout && (
          <EvidenceFrame
            refName={timeoutRef(firstTimeout.index)}
            fp={firstTimeout.fingerprint}
            focused={focus === timeoutRef(firstTimeout.index)}
          >
            <FirstTimeoutCard timeout={firstTimeout} onFindRequest={onFindRequest} />
          </EvidenceFrame>
        )}
      </section>
    </RunPlace.Provider>
  );
}
