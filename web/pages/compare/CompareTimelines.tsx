/**
 * The compared runs' timelines side by side: each run's requests as lanes on
 * its own clock (web/state/compareTimeline.ts), the first timeout marked, so a
 * stalled run and its passing control read at a glance.
 */
import { useEffect, useState } from 'react';
import type { RequestRow, RunDetail } from '../../../shared/protocol/apiSchemas.ts';
import { getRequests } from '../../api/rest.ts';
import { laneChart, TIMELINE_ROWS } from '../../state/compareTimeline.ts';
import { nameOf } from './runName.ts';
import '../../styles/compare.css';

const LANE = 6;
/** A run of few requests is drawn taller than its lanes need, so its bars stay visible. */
const MIN_HEIGHT = 48;

function RunLanes({ run }: { run: RunDetail }) {
  const [rows, setRows] = useState<RequestRow[] | null>(null);
  useEffect(() => {
    let current = true;
    getRequests(run.id, 0, TIMELINE_ROWS).then(
      (r) => current && setRows(r.requests),
      () => current && setRows([]),
    );
    return () => {
      current = false;
    };
  }, [run.id]);
  if (!rows) return <p className="muted">Loading…</p>;
  const { lanes, spanMs } = laneChart(rows, run.summary?.durationS ?? null);
  const height = Math.max(1, rows.length) * LANE;
  const ft = run.firstTimeout;
  return (
    <figure className="compare-lanes" data-testid="compare-timeline" data-run-id={run.id}>
      <svg
        viewBox={`0 0 ${spanMs} ${height}`}
        preserveAspectRatio="none"
        width="100%"
        height={Math.max(MIN_HEIGHT, height)}
        role="img"
      >
        <title>{`${nameOf(run)}: ${lanes.length} requests over ${(spanMs / 1000).toFixed(2)} s`}</title>
        {lanes.map((l) => (
          <rect
            key={l.index}
            x={l.x0}
            width={Math.max(l.x1 - l.x0, spanMs / 500)}
            y={l.index * LANE + 1}
            height={LANE - 2}
            className={`lane lane-${l.status}`}
          />
        ))}
        {ft?.t != null && <line x1={ft.t} x2={ft.t} y1={0} y2={height} className="lane-timeout" />}
      </svg>
      <figcaption className="muted">
        {rows.length} request{rows.length === 1 ? '' : 's'}
        {run.counts.total > rows.length ? ` (the first ${rows.length} of ${run.counts.total})` : ''} over{' '}
        {(spanMs / 1000).toFixed(2)} s{ft ? `; first timeout #${ft.index} in ${ft.phase}` : ''}
      </figcaption>
    </figure>
  );
}

export function CompareTimelines({ runs }: { runs: readonly RunDetail[] }) {
  return (
    <section className="panel">
      <h2>Timelines</h2>
      <div className="compare-lanes-grid" style={{ gridTemplateColumns: `repeat(${runs.length}, minmax(0, 1fr))` }}>
        {runs.map((r) => (
          <div key={r.id}>
            <h3>{nameOf(r)}</h3>
            <RunLanes run={r} />
          </div>
        ))}
      </div>
    </section>
  );
}
