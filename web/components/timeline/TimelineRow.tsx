/** One request's row: life segments, Code2Wav phase sub-segments, end cap, stall and timeout markers. */
import { memo } from 'react';
import type { OpRecord, RequestView } from '../../../shared/runView/runModel.ts';
import { blockedWaitText, type BlockedWait } from '../../../shared/runView/runStory.ts';
import { lifeSegments, phaseIndex, phaseSegments, place, timeToX, type View } from './geometry.ts';

export const ROW_H = 20;

export interface RowProps {
  row: RequestView;
  ops: readonly OpRecord[];
  /** Run-clock ms of stall reports naming this request. */
  stallTs: readonly number[];
  /** Time spent queued behind a stalled op, if any. */
  blocked?: BlockedWait;
  view: View;
  nowT: number;
  selected: boolean;
  highlighted: boolean;
  top: number;
}

export const TimelineRow = memo(function TimelineRow({
  row,
  ops,
  stallTs,
  blocked,
  view,
  nowT,
  selected,
  highlighted,
  top,
}: RowProps) {
  const life = place(lifeSegments(row, nowT, blocked), view);
  const phases = place(phaseSegments(ops, nowT), view, 1);
  const endX = row.endT !== null ? timeToX(row.endT, view) : null;
  const cls = `tl-row st-${row.status}${selected ? ' selected' : ''}${highlighted ? ' highlighted' : ''}`;
  return (
    <div
      className={cls}
      style={{ transform: `translateY(${top}px)`, height: ROW_H }}
      data-testid="timeline-row"
      data-index={row.index}
      data-status={row.status}
    >
      <div className="tl-label" title={row.requestId}>
        <span className="tl-index">#{row.index}</span>
        <span className={`tl-dot end-${row.status}`} aria-label={row.status.replace(/_/g, ' ')} />
      </div>
      <div className="tl-track">
        {life.map((p, i) => (
          <div
            key={i}
            className={`seg seg-${p.item.kind}`}
            style={{ left: p.left, width: p.width }}
            {...(p.item.kind === 'blocked' && blocked
              ? { 'data-testid': 'seg-blocked', title: blockedWaitText(blocked) }
              : {})}
          />
        ))}
        {phases.map((p, i) => (
          <div
            key={`p${i}`}
            className={`ph ph-${phaseIndex(p.item.phase ?? '')}${p.item.stalled ? ' ph-stalled' : ''}`}
            style={{ left: p.left, width: p.width }}
          />
        ))}
        {endX !== null && endX >= 0 && endX <= view.width && (
          <div className={`endcap end-${row.status}`} style={{ left: endX - 2 }} />
        )}
        {row.status === 'timed_out' && endX !== null && endX >= 0 && endX <= view.width && (
          <div className="mark mark-timeout" style={{ left: endX - 5 }} title="timed out" />
        )}
        {stallTs.map((t, i) => {
          const x = timeToX(t, view);
          return x >= 0 && x <= view.width ? (
            <div key={`s${i}`} className="mark mark-stall" style={{ left: x - 5 }} title="watchdog stall" />
          ) : null;
        })}
      </div>
    </div>
  );
});
