/** The board: one row per fingerprint, its detail (jobs, occurrences, controls) right under it. */
import type { StallGroupReply } from '../../../shared/stalls/stallsApi.ts';
import { StallGroupRows } from './StallGroupRows.tsx';

export function StallBoard({ groups }: { groups: readonly StallGroupReply[] }) {
  return (
    <div className="table-wrap">
      <table className="stall-board" data-testid="stall-board">
        <thead>
          <tr>
            <th>Fingerprint</th>
            <th>Phase</th>
            <th>Top frames</th>
            <th>Occurrences</th>
            <th>First seen</th>
            <th>Last seen</th>
            <th>Builds</th>
            <th>Nodes</th>
            <th>Commits</th>
          </tr>
        </thead>
        {groups.map((g) => (
          <StallGroupRows key={g.fingerprint} group={g} />
        ))}
      </table>
    </div>
  );
}
