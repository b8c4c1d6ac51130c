/** The timeline's keys: arrows and pages select a request, Enter opens it, + and - zoom, left and right pan, 0 fits. */
import type { TimelineViewport } from './useTimelineViewport.ts';

export function timelineKeyHandler({
  rowCount,
  selected,
  onSelect,
  vp,
}: {
  rowCount: number;
  selected: number | null;
  onSelect: (index: number) => void;
  vp: TimelineViewport;
}): (e: React.KeyboardEvent) => void {
  return (e) => {
    const cur = selected ?? -1;
    const go = (i: number) => {
      const j = Math.max(0, Math.min(rowCount - 1, i));
      onSelect(j);
      vp.virtualizer.scrollToIndex(j);
    };
    const keys: Record<string, () => void> = {
      ArrowDown: () => go(cur + 1),
      ArrowUp: () => go(cur - 1),
      PageDown: () => go(cur + 20),
      PageUp: () => go(cur - 20),
      Home: () => go(0),
      End: () => go(rowCount - 1),
      // Opens the selected request's detail again (after it was closed), or selects the first.
      Enter: () => (selected !== null ? onSelect(selected) : go(0)),
      '+': () => vp.zoomBy(1.5),
      '=': () => vp.zoomBy(1.5),
      '-': () => vp.zoomBy(1 / 1.5),
      '0': () => vp.fit(),
      ArrowLeft: () => vp.panBy(-vp.view.width / 5),
      ArrowRight: () => vp.panBy(vp.view.width / 5),
    };
    const f = keys[e.key];
    if (f) {
      e.preventDefault();
      f();
    }
  };
}
