/** The board: one row per fingerprint, its detail (jobs, occurrences, controls) right under it. */
import { useDeferredValue } from 'react';
import type { StallGroupReply } from '../../../shared/stalls/stallsApi.ts';
import { StallGroupRows } from './StallGroupRows.tsx';

/**
 * The groups drawn with the board's first draw: a 900 px window shows two or three. A year's default board is 25
 * groups of ~320 elements each, and on two cores drawing them all took 161 ms of script and 260 of style and layout
 * before anything showed (docs/performance.md#cold-loads); the rest are drawn right after, in a render React may
 * interrupt for input (`useDeferredValue`).
 */
const FIRST_DRAW_GROUPS = 3;

export function StallBoard({ groups, testId }: { groups: readonly StallGroupReply[]; testId: string }) {
  const drawn = useDeferredValue(
    groups,
    groups.length > FIRST_DRAW_GROUPS ? groups.slice(0, FIRST_DRAW_GROUPS) : groups,
  );
  return (
    <div className="table-wrap">
      <table className="stall-board" data-testid={testId} data-drawn-all={drawn === groups}>
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
        {drawn.map((g) => (
          <StallGroupRows key={`${g.fingerprint}\u0000${g.pipeline}\u0000${g.step}`} group={g} />
        ))}
      </table>
    </div>
  );
}
