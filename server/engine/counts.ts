/** Request outcome counts of a run: the shared rule (shared/outcomes.ts) over the run's ends. */
import { countOutcomes } from '../../shared/outcomes.ts';
import type { RequestEndStatus, RunCounts, StopCause } from '../../shared/types.ts';

export function countStatuses(
  statuses: readonly RequestEndStatus[],
  stoppedBy: readonly (StopCause | null)[],
): RunCounts {
  return countOutcomes(
    statuses.length,
    statuses.map((status, i) => ({ status, stoppedBy: stoppedBy[i] ?? null })),
  );
}
