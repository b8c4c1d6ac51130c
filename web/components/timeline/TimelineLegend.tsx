/** What the colours of the timeline mean. */
import { C2W_PHASES } from '../../../shared/types.ts';
import { REQUEST_END_STATUSES } from '../../../shared/outcomes.ts';

const LIFE = [
  ['queued', 'queued'],
  ['waiting', 'waiting for first token'],
  ['text', 'text'],
  ['audio', 'audio'],
  ['blocked', 'waiting behind a stalled op'],
] as const;
const ENDS = REQUEST_END_STATUSES;

export function TimelineLegend() {
  return (
    <div className="legend" aria-label="Legend">
      {LIFE.map(([k, label]) => (
        <span key={k} className="lg">
          <i className={`sw seg-${k}`} />
          {label}
        </span>
      ))}
      <span className="lg-sep" />
      {C2W_PHASES.map((p, i) => (
        <span key={p} className="lg">
          <i className={`sw ph-${i}`} />
          {p.replace(/_/g, ' ')}
        </span>
      ))}
      <span className="lg-sep" />
      {ENDS.map((e) => (
        <span key={e} className="lg">
          <i className={`sw end-${e}`} />
          {e.replace(/_/g, ' ')}
        </span>
      ))}
      <span className="lg">
        <i className="sw mark-stall" />
        stall
      </span>
    </div>
  );
}
