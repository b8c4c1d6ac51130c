/**
 * The timeline's viewport: which time window is shown across how many
 * pixels (zoom and pan, following the run's end unless zoomed), the scroll
 * box and its width, and which rows are rendered (virtualized with
 * @tanstack/react-virtual, so 10,000 rows scroll smoothly). Ctrl/alt + wheel
 * zooms at the pointer, shift + wheel pans.
 */
import { useVirtualizer } from '@tanstack/react-virtual';
import { useEffect, useLayoutEffect, useMemo, useRef, useState } from 'react';
import { clampView, panView, xToTime, zoomView, type View } from './geometry.ts';
import { ROW_H } from './TimelineRow.tsx';

/** Width of the row labels left of the time track. */
export const LABEL_W = 84;

interface ViewportOptions {
  rowCount: number;
  /** Run-clock ms now (live) or the run's end (replay). */
  nowT: number;
  /** The run's last event time: the window reaches at least this far. */
  lastT: number;
  /** Scroll this row into view when it changes. */
  scrollTo?: number | null;
  /** The rows moved under a still pointer (the box resized, the page scrolled). */
  onLayoutMove: () => void;
}

export function useTimelineViewport({ rowCount, nowT, lastT, scrollTo, onLayoutMove }: ViewportOptions) {
  const scrollRef = useRef<HTMLDivElement>(null);
  const [width, setWidth] = useState(800);
  const [zoom, setZoom] = useState<{ t0: number; t1: number } | null>(null);
  const domainEnd = Math.max(nowT, lastT, 1000);
  const trackW = Math.max(100, width - LABEL_W);
  // One view object per change, so rows that stay on screen while scrolling keep their props and skip rendering.
  const view: View = useMemo(
    () => (zoom ? clampView({ ...zoom, width: trackW }, domainEnd) : { t0: 0, t1: domainEnd, width: trackW }),
    [zoom, trackW, domainEnd],
  );

  useLayoutEffect(() => {
    const el = scrollRef.current;
    if (!el) return;
    const ro = new ResizeObserver(() => {
      setWidth(el.clientWidth);
      onLayoutMove();
    });
    ro.observe(el);
    setWidth(el.clientWidth);
    window.addEventListener('scroll', onLayoutMove, { passive: true });
    return () => {
      ro.disconnect();
      window.removeEventListener('scroll', onLayoutMove);
    };
  }, [onLayoutMove]);

  const virtualizer = useVirtualizer({
    count: rowCount,
    getScrollElement: () => scrollRef.current,
    estimateSize: () => ROW_H,
    overscan: 12,
  });

  useEffect(() => {
    if (scrollTo !== null && scrollTo !== undefined && scrollTo < rowCount)
      virtualizer.scrollToIndex(scrollTo, { align: 'center' });
  }, [scrollTo, rowCount, virtualizer]);

  const setView = (v: View) => setZoom(v.t0 <= 0 && v.t1 >= domainEnd ? null : { t0: v.t0, t1: v.t1 });
  const zoomBy = (f: number, anchor = (view.t0 + view.t1) / 2) => setView(zoomView(view, f, anchor, domainEnd));
  const panBy = (dxPx: number) => setView(panView(view, dxPx, domainEnd));
  const fit = () => setZoom(null);

  useWheelZoom(scrollRef, view, domainEnd, setView);

  /** The row under a client y (rows sit below the sticky axis, one ROW_H high). */
  const rowAt = (clientY: number) => {
    const el = scrollRef.current!;
    const y = clientY - el.getBoundingClientRect().top + el.scrollTop - ROW_H; // below the sticky axis
    return Math.floor(y / ROW_H);
  };

  const viewport = { width, trackW, view, zoomed: zoom !== null, virtualizer, zoomBy, panBy, fit, rowAt };
  return { scrollRef, viewport };
}

/** The viewport's values and moves (the scroll box's ref comes beside it). */
export type TimelineViewport = ReturnType<typeof useTimelineViewport>['viewport'];

/**
 * Wheel needs a non-passive listener to keep the page from scrolling while
 * zooming. It is added again after every render (a layout effect, so before
 * any event can reach it), so it always sees the current view.
 */
function useWheelZoom(
  scrollRef: React.RefObject<HTMLDivElement | null>,
  view: View,
  domainEnd: number,
  setView: (v: View) => void,
): void {
  useLayoutEffect(() => {
    const el = scrollRef.current;
    if (!el) return;
    const onWheel = (e: WheelEvent) => {
      const x = e.clientX - el.getBoundingClientRect().left - LABEL_W;
      if (e.ctrlKey || e.altKey) {
        e.preventDefault();
        setView(zoomView(view, e.deltaY < 0 ? 1.25 : 0.8, xToTime(Math.max(0, x), view), domainEnd));
      } else if (e.shiftKey) {
        e.preventDefault();
        setView(panView(view, e.deltaY || e.deltaX, domainEnd));
      }
    };
    el.addEventListener('wheel', onWheel, { passive: false });
    return () => el.removeEventListener('wheel', onWheel);
  });
}
