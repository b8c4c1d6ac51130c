/**
 * The per-request timeline: one row per request, virtualized with
 * @tanstack/react-virtual so 10,000 rows scroll smoothly; zoom (buttons,
 * ctrl/alt + wheel, + and - keys) and pan (drag, shift + wheel, arrow keys)
 * on time; hover shows a segment's times, click (or Enter) opens a request.
 */
import { useVirtualizer } from '@tanstack/react-virtual';
import { useEffect, useLayoutEffect, useMemo, useRef, useState } from 'react';
import type { OpRecord, RunModel } from '../../state/runModel.ts';
import { blockedWaits } from '../../state/runStory.ts';
import { clampView, formatTick, niceTicks, panView, timeToX, xToTime, zoomView, type View } from './geometry.ts';
import { describeAt } from './tooltip.ts';
import { ROW_H, TimelineRow } from './TimelineRow.tsx';
import { TimelineLegend } from './TimelineLegend.tsx';

const LABEL_W = 84;
const NO_OPS: OpRecord[] = [];
const NO_STALLS: number[] = [];

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
  const scrollRef = useRef<HTMLDivElement>(null);
  const [width, setWidth] = useState(800);
  const [zoom, setZoom] = useState<{ t0: number; t1: number } | null>(null);
  const [tip, setTip] = useState<{ x: number; y: number; lines: string[] } | null>(null);
  const domainEnd = Math.max(nowT, model.lastT, 1000);
  const trackW = Math.max(100, width - LABEL_W);
  // One view object per change, so rows that stay on screen while scrolling keep their props and skip rendering.
  const view: View = useMemo(
    () => (zoom ? clampView({ ...zoom, width: trackW }, domainEnd) : { t0: 0, t1: domainEnd, width: trackW }),
    [zoom, trackW, domainEnd],
  );

  useLayoutEffect(() => {
    const el = scrollRef.current;
    if (!el) return;
    // A tooltip belongs to the rows under the pointer when it was drawn: when the layout moves them
    // (the detail panel opens beside or below, the page scrolls) without the pointer moving, it goes.
    const ro = new ResizeObserver(() => {
      setWidth(el.clientWidth);
      setTip(null);
    });
    ro.observe(el);
    setWidth(el.clientWidth);
    const dropTip = () => setTip(null);
    window.addEventListener('scroll', dropTip, { passive: true });
    return () => {
      ro.disconnect();
      window.removeEventListener('scroll', dropTip);
    };
  }, []);

  const virtualizer = useVirtualizer({
    count: rows.length,
    getScrollElement: () => scrollRef.current,
    estimateSize: () => ROW_H,
    overscan: 12,
  });

  useEffect(() => {
    if (scrollTo !== null && scrollTo !== undefined && scrollTo < rows.length)
      virtualizer.scrollToIndex(scrollTo, { align: 'center' });
  }, [scrollTo, rows.length, virtualizer]);

  // Time each request spent queued behind a stalled op, drawn as its own segment.
  const waits = useMemo(
    () => blockedWaits({ ops: model.ops, opsByRequest: model.opsByRequest, requests: rows }, nowT),
    [model.ops, model.opsByRequest, rows, nowT],
  );

  // Stall markers by request id, recomputed only when stalls change.
  const stallTsById = useMemo(() => {
    const m = new Map<string, number[]>();
    for (const s of model.stalls) for (const id of s.report.requestIds) m.set(id, [...(m.get(id) ?? []), s.t]);
    return m;
  }, [model.stalls]);

  // One ops array per request and model version, so memoized rows skip redraws when nothing changed for them.
  const opsOf = useMemo(() => {
    const cache = new Map<string, OpRecord[]>();
    return (requestId: string): OpRecord[] => {
      let v = cache.get(requestId);
      if (!v) {
        const keys = model.opsByRequest[requestId];
        v = keys ? keys.map((k) => model.ops[k]).filter(Boolean) : NO_OPS;
        cache.set(requestId, v);
      }
      return v;
    };
  }, [model.opsByRequest, model.ops]);

  const setView = (v: View) => setZoom(v.t0 <= 0 && v.t1 >= domainEnd ? null : { t0: v.t0, t1: v.t1 });
  const zoomBy = (f: number, anchor = (view.t0 + view.t1) / 2) => setView(zoomView(view, f, anchor, domainEnd));

  // Wheel needs a non-passive listener to keep the page from scrolling while zooming.
  const viewRef = useRef(view);
  viewRef.current = view;
  useEffect(() => {
    const el = scrollRef.current;
    if (!el) return;
    const onWheel = (e: WheelEvent) => {
      const v = viewRef.current;
      const x = e.clientX - el.getBoundingClientRect().left - LABEL_W;
      if (e.ctrlKey || e.altKey) {
        e.preventDefault();
        setView(zoomView(v, e.deltaY < 0 ? 1.25 : 0.8, xToTime(Math.max(0, x), v), domainEndRef.current));
      } else if (e.shiftKey) {
        e.preventDefault();
        setView(panView(v, e.deltaY || e.deltaX, domainEndRef.current));
      }
    };
    el.addEventListener('wheel', onWheel, { passive: false });
    return () => el.removeEventListener('wheel', onWheel);
  });
  const domainEndRef = useRef(domainEnd);
  domainEndRef.current = domainEnd;

  const drag = useRef<{ x: number; moved: boolean } | null>(null);
  const rowAt = (clientY: number) => {
    const el = scrollRef.current!;
    const y = clientY - el.getBoundingClientRect().top + el.scrollTop - ROW_H; // below the sticky axis
    return Math.floor(y / ROW_H);
  };

  function onPointerMove(e: React.PointerEvent) {
    const el = scrollRef.current!;
    const rect = el.getBoundingClientRect();
    if (drag.current && e.buttons === 1) {
      const dx = e.clientX - drag.current.x;
      if (Math.abs(dx) > 2) {
        drag.current = { x: e.clientX, moved: true };
        setView(panView(view, -dx, domainEnd));
      }
      return;
    }
    const i = rowAt(e.clientY);
    const x = e.clientX - rect.left - LABEL_W;
    const row = rows[i];
    if (!row || x < 0) return setTip(null);
    const yIn = (e.clientY - rect.top + el.scrollTop - ROW_H) % ROW_H;
    const lines = describeAt(row, opsOf(row.requestId), view, nowT, x, yIn >= ROW_H / 2, waits[row.requestId]);
    setTip(lines ? { x: e.clientX - rect.left + 12, y: e.clientY - rect.top + 12, lines } : null);
  }

  function onKeyDown(e: React.KeyboardEvent) {
    const cur = selected ?? -1;
    const go = (i: number) => {
      const j = Math.max(0, Math.min(rows.length - 1, i));
      onSelect(j);
      virtualizer.scrollToIndex(j);
    };
    const keys: Record<string, () => void> = {
      ArrowDown: () => go(cur + 1),
      ArrowUp: () => go(cur - 1),
      PageDown: () => go(cur + 20),
      PageUp: () => go(cur - 20),
      Home: () => go(0),
      End: () => go(rows.length - 1),
      // Opens the selected request's detail again (after it was closed), or selects the first.
      Enter: () => (selected !== null ? onSelect(selected) : go(0)),
      '+': () => zoomBy(1.5),
      '=': () => zoomBy(1.5),
      '-': () => zoomBy(1 / 1.5),
      '0': () => setZoom(null),
      ArrowLeft: () => setView(panView(view, -view.width / 5, domainEnd)),
      ArrowRight: () => setView(panView(view, view.width / 5, domainEnd)),
    };
    const f = keys[e.key];
    if (f) {
      e.preventDefault();
      f();
    }
  }

  const ticks = niceTicks(view.t0, view.t1, Math.max(2, Math.floor(trackW / 110)));
  const items = virtualizer.getVirtualItems();
  return (
    <section className="timeline" aria-label="Per-request timeline">
      <div className="tl-toolbar">
        <strong>Requests</strong>
        <span className="muted">{rows.length.toLocaleString('en-US')} rows</span>
        <span className="spacer" />
        <button type="button" onClick={() => zoomBy(1.5)} aria-label="Zoom in">
          +
        </button>
        <button type="button" onClick={() => zoomBy(1 / 1.5)} aria-label="Zoom out">
          −
        </button>
        <button type="button" onClick={() => setZoom(null)} disabled={!zoom}>
          {zoom ? 'Fit' : 'Following'}
        </button>
      </div>
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
        onPointerDown={(e) => {
          drag.current = { x: e.clientX, moved: false };
        }}
        onPointerUp={(e) => {
          const moved = drag.current?.moved;
          drag.current = null;
          if (!moved) {
            const i = rowAt(e.clientY);
            if (rows[i]) onSelect(i);
          }
        }}
        onPointerMove={onPointerMove}
        onPointerLeave={() => setTip(null)}
        onScroll={() => setTip(null)}
      >
        <div className="tl-axis" style={{ width }}>
          {ticks.map((t) => (
            <span key={t} className="tick" style={{ left: LABEL_W + timeToX(t, view) }}>
              {formatTick(t, view.t1 - view.t0)}
            </span>
          ))}
        </div>
        {rows.length === 0 ? (
          <div className="state state-empty">No requests yet.</div>
        ) : (
          <div className="tl-body" style={{ height: virtualizer.getTotalSize() }}>
            {items.map((it) => {
              const row = rows[it.index];
              return (
                <TimelineRow
                  key={it.index}
                  row={row}
                  ops={opsOf(row.requestId)}
                  stallTs={stallTsById.get(row.requestId) ?? NO_STALLS}
                  blocked={waits[row.requestId]}
                  view={view}
                  nowT={nowT}
                  selected={selected === it.index}
                  highlighted={!!highlight?.has(row.requestId)}
                  top={it.start}
                />
              );
            })}
          </div>
        )}
        {tip && (
          <div
            className="tl-tip"
            style={{ left: tip.x, top: tip.y + (scrollRef.current?.scrollTop ?? 0) }}
            role="tooltip"
          >
            {tip.lines.map((l, i) => (
              <div key={i} className={i === 0 ? 'tip-head' : ''}>
                {l}
              </div>
            ))}
          </div>
        )}
      </div>
    </section>
  );
}
