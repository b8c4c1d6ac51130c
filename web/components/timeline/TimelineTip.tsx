/** The hover tooltip: the segment's name, then its times. */
import type { Tip } from './useTimelinePointer.ts';

export function TimelineTip({ tip }: { tip: Tip }) {
  return (
    <div className="tl-tip" style={{ left: tip.left, top: tip.top }} role="tooltip">
      {tip.lines.map((l, i) => (
        <div key={i} className={i === 0 ? 'tip-head' : ''}>
          {l}
        </div>
      ))}
    </div>
  );
}
