/**
 * The per-request timeline: one row per request, virtualized with
 * @tanstack/react-virtual so 10,000 rows scroll smoothly; zoom (buttons,
 * ctrl/alt + wheel, + and - keys) and pan (drag, shift + wheel, arrow keys)
 * on time; hover shows a segment's times, click (or Enter) opens a request.
 * Given `only`, it shows just those requests (a stalled batch, from a story
 * link), each still under its own index.
 */
import { useCallback, useMemo } from 'react';
import type { RequestView, RunModel } from '../../../shared/runView/runModel.ts';
import { shownRow } from '../../../shared/runView/unsentRows.ts';
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
  /** Show only these request indices (sorted); the toolbar says so and offers them all back. */
  only?: readonly number[];
  onShowAll?: () => void;
}

export function Timeline(props: TimelineProps) {
  const { model, nowT, selected, highlight, only, height = 420 } = props;
  const all = model.requests;
  const rows = useMemo(() => (only ? only.map((i) => all[i]).filter((r) => r !== undefined) : all), [all, only]);
  // Positions on screen ↔ request indices: the same numbers unless the timeline is filtered.
  const posOf = (index: number | null | undefined): number | null => {
    if (index === null || index === undefined) return null;
    const pos = only ? rows.findIndex((r) => r.index === index) : index;
    return pos >= 0 ? pos : null;
  };
  const onSelect = (pos: number) => {
    const r = rows[pos];
    if (r) props.onSelect(r.index);
  };
  // A tooltip belongs to the rows under the pointer when it was drawn: when the layout moves them
  // (the detail panel opens beside or below, the page scrolls) without the pointer moving, it goes.
  const { tip, setTip, dropTip } = useTimelineTip();
  const { scrollRef, viewport: vp } = useTimelineViewport({
    rowCount: rows.length,
    nowT,
    lastT: model.lastT,
    scrollTo: posOf(props.scrollTo),
    onLayoutMove: dropTip,
  });
  const data = useTimelineRowData(model, nowT);
  // Rows of an unsent range are drawn as ended there, built only for the rows in view.
  const unsent = model.unsent;
  const show = useCallback((r: RequestView) => shownRow({ unsent }, r), [unsent]);
  const pointer = useTimelinePointer({ rows, scrollRef, vp, data, nowT, setTip, onSelect, show });
  const onKeyDown = timelineKeyHandler({
    rowCount: rows.length,
    selected: posOf(selected),
    onSelect,
    vp,
  });
  return (
    <section className="timeline" aria-label="Per-request timeline">
      <TimelineToolbar
        rowCount={rows.length}
        total={all.length}
        only={only}
        onShowAll={props.onShowAll}
        zoomed={vp.zoomed}
        zoomBy={vp.zoomBy}
        fit={vp.fit}
      />
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
        data-filtered={only ? 'true' : undefined}
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
          show={show}
        />
        {tip && <TimelineTip tip={tip} />}
      </div>
    </section>
  );
}
