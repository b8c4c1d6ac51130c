/** The sticky time axis over the rows: round ticks for the visible window. */
import { formatTick, niceTicks, timeToX, type View } from './geometry.ts';
import { LABEL_W } from './useTimelineViewport.ts';

export function TimelineAxis({ view, width, trackW }: { view: View; width: number; trackW: number }) {
  const ticks = niceTicks(view.t0, view.t1, Math.max(2, Math.floor(trackW / 110)));
  return (
    <div className="tl-axis" style={{ width }}>
      {ticks.map((t) => (
        <span key={t} className="tick" style={{ left: LABEL_W + timeToX(t, view) }}>
          {formatTick(t, view.t1 - view.t0)}
        </span>
      ))}
    </div>
  );
}
