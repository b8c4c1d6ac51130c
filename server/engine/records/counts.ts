/** Request outcome counts of a run: the shared rule (shared/requests/outcomes.ts) over the run's ends. */
import { countEnded, emptyCounts } from '../../../shared/requests/outcomes.ts';
import type { RecordList } from '../../../shared/metrics/input.ts';
import type { RequestEndStatus, RunCounts, StopCause } from '../../../shared/types.ts';

export function countStatuses(
  statuses: RecordList<RequestEndStatus>,
  stoppedBy: RecordList<StopCause | null>,
): RunCounts {
  const c = emptyCounts(statuses.length);
  let i = 0;
  for (const status of statuses) countEnded(c, { status, stoppedBy: stoppedBy.at(i++) ?? null });
  return c;
}
