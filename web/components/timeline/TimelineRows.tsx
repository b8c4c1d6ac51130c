/** The rows in view (and a few around them), each placed at its virtual offset; or the empty state. */
import type { RequestView } from '../../../shared/runView/runModel.ts';
import type { View } from './geometry.ts';
import { TimelineRow } from './TimelineRow.tsx';
import type { TimelineRowData } from './useTimelineRowData.ts';
import type { TimelineViewport } from './useTimelineViewport.ts';

const NO_STALLS: number[] = [];

export function TimelineRows({
  rows,
  virtualizer,
  data,
  view,
  nowT,
  selected,
  highlight,
  show,
}: {
  rows: readonly RequestView[];
  /** A row as drawn: an unsent range's rows as their end in the range (shared/runView/unsentRows.ts). */
  show: (row: RequestView) => RequestView;
  virtualizer: TimelineViewport['virtualizer'];
  data: TimelineRowData;
  view: View;
  nowT: number;
  /** The open request's index (not its position: a filtered timeline shows some rows only). */
  selected: number | null;
  highlight?: ReadonlySet<string>;
}) {
  if (rows.length === 0) return <div className="state state-empty">No requests yet.</div>;
  return (
    <div className="tl-body" style={{ height: virtualizer.getTotalSize() }}>
      {virtualizer.getVirtualItems().map((it) => {
        const row = show(rows[it.index]);
        return (
          <TimelineRow
            key={it.index}
            row={row}
            ops={data.opsOf(row.requestId)}
            stallTs={data.stallTsById.get(row.requestId) ?? NO_STALLS}
            blocked={data.waits[row.requestId]}
            view={view}
            nowT={nowT}
            selected={selected === row.index}
            highlighted={!!highlight?.has(row.requestId)}
            top={it.start}
          />
        );
      })}
    </div>
  );
}
