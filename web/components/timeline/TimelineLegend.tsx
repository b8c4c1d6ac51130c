/** What the colours of the timeline mean. */
import { C2W_PHASES, REQUEST_END_STATUSES } from '../../../shared/types.ts';

const LIFE = [
  ['queued', 'queued'],
  ['waiting', 'waiting for first token or audio'],
  ['text', 'text'],
  ['audio', 'audio'],
  ['blocked', 'waiting behind a stalled op'],
] as const;

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
      {REQUEST_END_STATUSES.map((e) => (
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
