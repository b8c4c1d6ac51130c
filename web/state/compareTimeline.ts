/**
 * A compared run's requests as lanes on its own clock, pure: one bar per
 * request from when it was sent to when it ended (or to the end of the run
 * when it never ended), coloured by how it ended, and where the first
 * structural timeout fell. Each run keeps its own time scale: a clean run of
 * 0.1 s beside a stalled one of 900 s would otherwise be a dot.
 */
import type { RequestRow } from '../../shared/protocol/apiSchemas.ts';

/** The most requests drawn per run (the first ones, by index). */
export const TIMELINE_ROWS = 200;

export interface Lane {
  index: number;
  /** ms on the run's clock. */
  x0: number;
  x1: number;
  status: string;
}

export interface LaneChart {
  lanes: Lane[];
  /** The clock's span shown, ms (never 0). */
  spanMs: number;
}

export function laneChart(rows: readonly RequestRow[], durationS: number | null): LaneChart {
  const ends = rows.map((r) => r.endT ?? r.sentT ?? 0);
  const spanMs = Math.max(1, (durationS ?? 0) * 1000, ...ends);
  const lanes = rows
    .filter((r) => r.sentT !== null)
    .map((r) => ({ index: r.index, x0: r.sentT!, x1: Math.max(r.sentT!, r.endT ?? spanMs), status: r.status }));
  return { lanes, spanMs };
}
