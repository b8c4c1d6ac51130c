/**
 * Above the timeline: the row count (and, when it shows a few requests only,
 * which ones, with the way back to all of them) and the zoom buttons (Fit
 * goes back to following the run).
 */
import { count } from '../../../shared/format.ts';
import { rangeWords } from '../../../shared/runView/requestRanges.ts';

export function TimelineToolbar({
  rowCount,
  total,
  only,
  onShowAll,
  zoomed,
  zoomBy,
  fit,
}: {
  rowCount: number;
  total: number;
  only?: readonly number[];
  onShowAll?: () => void;
  zoomed: boolean;
  zoomBy: (factor: number) => void;
  fit: () => void;
}) {
  return (
    <div className="tl-toolbar">
      <strong>Requests</strong>
      {only ? (
        <span className="tl-filter" role="status" data-testid="timeline-filter">
          only {rangeWords(only)}: {count(rowCount)} of {count(total)} rows{' '}
          {onShowAll && (
            <button type="button" className="link" onClick={onShowAll} data-testid="timeline-show-all">
              Show all
            </button>
          )}
        </span>
      ) : (
        <span className="muted">{count(rowCount)} rows</span>
      )}
      <span className="spacer" />
      <button type="button" onClick={() => zoomBy(1.5)} aria-label="Zoom in">
        +
      </button>
      <button type="button" onClick={() => zoomBy(1 / 1.5)} aria-label="Zoom out">
        −
      </button>
      <button type="button" onClick={fit} disabled={!zoomed}>
        {zoomed ? 'Fit' : 'Following'}
      </button>
    </div>
  );
}
