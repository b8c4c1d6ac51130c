/**
 * The per-request timeline: one row per request, virtualized with
 * @tanstack/react-virtual so 10,000 rows scroll smoothly; zoom (buttons,
 * ctrl/alt + wheel, + and - keys) and pan (drag, shift + wheel, arrow keys)
 * on time; hover shows a segment's times, click (or Enter) opens a request.
 */
import type { RunModel } from '../../../shared/runView/runModel.ts';
import { timelineKeyHandler } from './timelineKeys.ts';
import { TimelineAxis } from './TimelineAxis.tsx';
import { TimelineLegend } from './TimelineLegend.tsx';
import { TimelineRows } from './TimelineRows.tsx';
import { TimelineTip } from './TimelineTip.tsx';
import { TimelineToolbar } from './TimelineToolbar.tsx';
import { useTimelinePointer, useTimelineTip } from './useTimelinePointer.ts';
import { useTimelineRowData } from './useTimelineRowData.ts';
import { useTimelineViewport } from './useTimelineViewport.ts';

export interface TimelineProps {
  model: RunModel;
  /** Run-clock ms now (live) or the run's end (replay). */
  nowT: number;
  selected: number | null;
  onSelect: (index: number) => void;
  /** Request ids to highlight (e.g. the requests of a stall report). */
  highlight?: ReadonlySet<string>;
  /** Scroll this row into view when it changes. */
  scrollTo?: number | null;
  height?: number;
}

export function Timeline({ model, nowT, selected, onSelect, highlight, scrollTo, height = 420 }: TimelineProps) {
  const rows = model.requests;
  // A tooltip belongs to the rows under the pointer when it was drawn: when the layout moves them
  // (the detail panel opens beside or below, the page scrolls) without the pointer moving, it goes.
  const { tip, setTip, dropTip } = useTimelineTip();
  const { scrollRef, viewport: vp } = useTimelineViewport({
    rowCount: rows.length,
    nowT,
    lastT: model.lastT,
    scrollTo,
    onLayoutMove: dropTip,
  });
  const data = useTimelineRowData(model, nowT);
  const pointer = useTimelinePointer({ rows, scrollRef, vp, data, nowT, setTip, onSelect });
  const onKeyDown = timelineKeyHandler({ rowCount: rows.length, selected, onSelect, vp });
  return (
    <section className="timeline" aria-label="Per-request timeline">
      <TimelineToolbar rowCount={rows.length} zoomed={vp.zoomed} zoomBy={vp.zoomBy} fit={vp.fit} />
      <TimelineLegend />
      <div
        ref={scrollRef}
        className="tl-scroll"
        style={{ height }}
        tabIndex={0}
        role="grid"
        aria-rowcount={rows.length}
        aria-label="Requests over time. Arrow keys select a request, Enter opens it, + and - zoom, left and right pan, 0 fits."
        data-testid="timeline"
        data-rows={rows.length}
        onKeyDown={onKeyDown}
        {...pointer}
        onScroll={dropTip}
      >
        <TimelineAxis view={vp.view} width={vp.width} trackW={vp.trackW} />
        <TimelineRows
          rows={rows}
          virtualizer={vp.virtualizer}
          data={data}
          view={vp.view}
          nowT={nowT}
          selected={selected}
          highlight={highlight}
        />
        {tip && <TimelineTip tip={tip} />}
      </div>
    </section>
  );
}
