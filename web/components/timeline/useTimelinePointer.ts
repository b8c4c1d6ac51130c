/**
 * The pointer on the timeline: drag pans the time window, hover shows the
 * times of the segment under it, a click (without a drag) opens the request.
 */
import { useCallback, useRef, useState } from 'react';
import type { RequestView } from '../../../shared/runView/runModel.ts';
import { describeAt } from './tooltip.ts';
import { ROW_H } from './TimelineRow.tsx';
import type { TimelineRowData } from './useTimelineRowData.ts';
import { LABEL_W, type TimelineViewport } from './useTimelineViewport.ts';

export interface Tip {
  /** Where it is drawn in the scroll box's content (so below its scrolled-off part). */
  left: number;
  top: number;
  lines: string[];
}

/** The tooltip's state; it goes when the rows move under a still pointer. */
export function useTimelineTip() {
  const [tip, setTip] = useState<Tip | null>(null);
  const dropTip = useCallback(() => setTip(null), []);
  return { tip, setTip, dropTip };
}

export function useTimelinePointer({
  rows,
  scrollRef,
  vp,
  data,
  nowT,
  setTip,
  onSelect,
  show,
}: {
  rows: readonly RequestView[];
  /** A row as drawn (see TimelineRows). */
  show: (row: RequestView) => RequestView;
  scrollRef: React.RefObject<HTMLDivElement | null>;
  vp: TimelineViewport;
  data: TimelineRowData;
  nowT: number;
  setTip: (tip: Tip | null) => void;
  onSelect: (index: number) => void;
}) {
  const drag = useRef<{ x: number; moved: boolean } | null>(null);
  const { view, rowAt } = vp;

  function onPointerMove(e: React.PointerEvent) {
    const el = scrollRef.current!;
    const rect = el.getBoundingClientRect();
    if (drag.current && e.buttons === 1) {
      const dx = e.clientX - drag.current.x;
      if (Math.abs(dx) > 2) {
        drag.current = { x: e.clientX, moved: true };
        vp.panBy(-dx);
      }
      return;
    }
    const i = rowAt(e.clientY);
    const x = e.clientX - rect.left - LABEL_W;
    const row = rows[i] && show(rows[i]);
    if (!row || x < 0) return setTip(null);
    const yIn = (e.clientY - rect.top + el.scrollTop - ROW_H) % ROW_H;
    const lines = describeAt(
      row,
      data.opsOf(row.requestId),
      view,
      nowT,
      x,
      yIn >= ROW_H / 2,
      data.waits[row.requestId],
    );
    setTip(lines ? { left: e.clientX - rect.left + 12, top: e.clientY - rect.top + 12 + el.scrollTop, lines } : null);
  }

  return {
    onPointerDown: (e: React.PointerEvent) => {
      drag.current = { x: e.clientX, moved: false };
    },
    onPointerUp: (e: React.PointerEvent) => {
      const moved = drag.current?.moved;
      drag.current = null;
      if (!moved) {
        const i = rowAt(e.clientY);
        if (rows[i]) onSelect(i);
      }
    },
    onPointerMove,
    onPointerLeave: () => setTip(null),
  };
}
