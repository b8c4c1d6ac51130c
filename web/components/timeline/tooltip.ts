/** What the timeline tooltip says about the segment under the pointer (pure, for the hover handler). */
import type { OpRecord, RequestView } from '../../../shared/runView/runModel.ts';
import { blockedWaitText, type BlockedWait } from '../../../shared/runView/runStory.ts';
import { hitTest, lifeSegments, phaseSegments, place, type Segment, type View } from './geometry.ts';

const LIFE_TEXT: Record<string, string> = {
  queued: 'queued (waiting for a concurrency slot)',
  waiting: 'waiting for the first token',
  text: 'text streaming',
  audio: 'audio streaming',
};

const ms = (t: number) => (Math.abs(t) >= 10_000 ? `${(t / 1000).toFixed(2)} s` : `${Math.round(t)} ms`);

/** Lines for the tooltip of the segment at (x, in the phase band or not) of a row, or null. */
export function describeAt(
  row: RequestView,
  ops: readonly OpRecord[],
  view: View,
  nowT: number,
  x: number,
  phaseBand: boolean,
  blocked?: BlockedWait,
): string[] | null {
  let seg: Segment | undefined;
  if (phaseBand) seg = hitTest(place(phaseSegments(ops, nowT), view), x);
  seg ??= hitTest(place(lifeSegments(row, nowT, blocked), view), x);
  const head = `#${row.index} ${row.requestId} — ${row.status.replace(/_/g, ' ')}`;
  if (!seg) return [head];
  const span = `${ms(seg.t0)} → ${ms(seg.t1)} (${ms(seg.t1 - seg.t0)})${seg.open ? ', still open' : ''}`;
  if (seg.kind === 'blocked' && blocked) return [head, blockedWaitText(blocked), span];
  if (seg.kind !== 'phase') return [head, LIFE_TEXT[seg.kind] ?? seg.kind, span];
  const op = ops.find((o) => o.key === seg.opKey);
  const phase = op?.phases.find((p) => p.phase === seg.phase && p.t === seg.t0);
  const details = phase ? Object.entries(phase.details).map(([k, v]) => `${k}: ${String(v)}`) : [];
  return [
    head,
    `Code2Wav ${seg.phase}${seg.stalled ? ' (stalled)' : ''}, op ${seg.opKey}`,
    span,
    ...details.slice(0, 6),
  ];
}
