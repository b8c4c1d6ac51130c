/** The Code2Wav phases in order, the stuck one lit, the ones before it done. */
import { C2W_PHASES } from '../../../shared/types.ts';

export function PhaseStrip({
  phase,
  label,
  live = false,
  showUnknown = false,
}: {
  phase: string;
  label: string;
  /** The stall is still counting: the stuck phase pulses. */
  live?: boolean;
  /** A phase outside the known list gets its own lit step at the end. */
  showUnknown?: boolean;
}) {
  const stuck = (C2W_PHASES as readonly string[]).indexOf(phase);
  return (
    <ol className="phase-strip" aria-label={label}>
      {C2W_PHASES.map((p, i) => (
        <li
          key={p}
          className={`ps ph-${i}${i === stuck ? ' stuck' : ''}${i < stuck ? ' done' : ''}${i === stuck && live ? ' live' : ''}`}
          aria-current={i === stuck ? 'step' : undefined}
        >
          {p.replace(/_/g, ' ')}
        </li>
      ))}
      {showUnknown && stuck < 0 && <li className="ps stuck">{phase}</li>}
    </ol>
  );
}
