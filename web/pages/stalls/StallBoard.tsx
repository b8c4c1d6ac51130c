/** The board: one row per fingerprint, its detail (jobs, occurrences, controls) right under it. */
import type { StallGroupReply } from '../../../shared/stalls/stallsApi.ts';
import { StallGroupRows } from './StallGroupRows.tsx';

export function StallBoard({ groups, testId }: { groups: readonly StallGroupReply[]; testId: string }) {
  return (
    <div className="table-wrap">
      <table className="stall-board" data-testid={testId}>
        <thead>
          <tr>
            <th>Fingerprint</th>
            <th>Phase</th>
            <th>Top frames</th>
            <th>Occurrences (of the job&apos;s runs, rate)</th>
            <th>First / last seen</th>
            <th>Builds</th>
            <th>Nodes</th>
            <th>Commits</th>
          </tr>
        </thead>
        {groups.map((g) => (
          <StallGroupRows key={`${g.fingerprint}\u0000${g.pipeline}\u0000${g.step}`} group={g} />
        ))}
      </table>
    </div>
  );
}
