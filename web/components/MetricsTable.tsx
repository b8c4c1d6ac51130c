/**
 * vLLM's result layout for one or more runs: one value column per run; with
 * several, each column after the first shows its change against the first.
 */
import { delta, metricNumber, metricSections, type Metrics } from '../state/metricsTable.ts';
import { fmtNum } from '../state/selectors.ts';
import type { StopLike } from '../../shared/requests/stopLabel.ts';

export function MetricsTable({
  results,
  names,
  stops,
}: {
  results: readonly Metrics[];
  names?: readonly string[];
  /** Each run's stop (the stored `stopped_by`), so the row of the requests it cancelled names its rule. */
  stops?: readonly StopLike[];
}) {
  const sections = metricSections(results, stops);
  if (sections.length === 0) return <p className="muted">No metrics yet: they appear when the run finishes.</p>;
  return (
    <table className="metrics" data-testid="metrics-table">
      {names && (
        <thead>
          <tr>
            <th>metric</th>
            {names.map((n, i) => (
              <th key={i} className="num">
                {n}
              </th>
            ))}
          </tr>
        </thead>
      )}
      {sections.map((sec) => (
        <tbody key={sec.title}>
          <tr className="sec">
            <th colSpan={results.length + 1}>{sec.title}</th>
          </tr>
          {sec.rows.map((row) => {
            const base = metricNumber(results[0], row.key);
            return (
              <tr key={row.key} data-testid={`metric-${row.key}`}>
                <th title={row.title}>{row.label}</th>
                {results.map((m, i) => {
                  const v = m[row.key];
                  const d = i > 0 ? delta(base, metricNumber(m, row.key)) : null;
                  return (
                    <td key={i} className="num">
                      {typeof v === 'number' ? fmtNum(v, row.digits) : (v ?? '–')}
                      {d && d.abs !== 0 && (
                        <span className={`delta ${d.abs > 0 ? 'up' : 'down'}`}>
                          {d.abs > 0 ? '+' : ''}
                          {fmtNum(d.abs, row.digits)}
                          {d.rel !== null ? ` (${d.rel > 0 ? '+' : ''}${(d.rel * 100).toFixed(0)}%)` : ''}
                        </span>
                      )}
                    </td>
                  );
                })}
              </tr>
            );
          })}
        </tbody>
      ))}
    </table>
  );
}
