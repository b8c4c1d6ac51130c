/**
 * One CI job's last runs as a strip, a row per node with its hang rate:
 * each cell a run (passed, failed, or stalled — this fingerprint or another),
 * oldest on the left, linking to the run; then the sentence that says it.
 */
import type { JobBoard } from '../../../shared/stalls/stallsApi.ts';
import { href } from '../../state/router.ts';
import { percent, rateText, stripByNode, type StripCell } from '../../state/stallsView.ts';
import { NodeName } from './NodeName.tsx';
import { dateTime } from '../../../shared/format.ts';

/** What each cell's colour means, in the order of the strip's story: the legend drawn under it. */
const LEGEND: [string, string][] = [
  ['strip-cell strip-passed', 'passed'],
  ['strip-cell strip-failed', 'failed'],
  ['strip-cell strip-stalled', 'stalled (another)'],
  ['strip-cell strip-stalled strip-this', 'stalled (this)'],
];

function cellClass(c: StripCell, fingerprint: string): string {
  if (c.outcome !== 'stalled') return `strip-cell strip-${c.outcome}`;
  return `strip-cell strip-stalled${c.fingerprint === fingerprint ? ' strip-this' : ''}`;
}

function cellTitle(c: StripCell): string {
  const what = c.outcome === 'stalled' ? `stalled: ${c.label}` : c.outcome;
  return `${c.build ? `build ${c.build}` : c.id} · ${dateTime(c.atMs)} · ${what}`;
}

export function JobStripView({ job, fingerprint }: { job: JobBoard; fingerprint: string }) {
  const name = [job.pipeline, job.step].filter(Boolean).join(' / ') || 'runs without CI metadata';
  return (
    <div className="job-strip" data-testid="job-strip" data-step={job.step ?? ''}>
      <p className="pattern" data-testid="pattern-sentence">
        {job.sentence}
      </p>
      <table className="strip">
        <caption>
          {name}: last {job.runs.length} run{job.runs.length === 1 ? '' : 's'}, hang rate {percent(job.hangRate)}
        </caption>
        <tbody>
          {stripByNode(job).map((n) => (
            <tr key={n.node} data-testid="strip-node" data-node={n.node}>
              <th>
                <NodeName node={n.node} />
              </th>
              <td className="num" data-testid="hang-rate" title={rateText(n)}>
                {percent(n.hangRate)}
              </td>
              <td>
                {n.cells.map((c) => {
                  // Once a cell: a default board draws thousands of them, each title a formatted date.
                  const title = cellTitle(c);
                  return (
                    <a
                      key={c.id}
                      href={href({ page: 'run', id: c.id })}
                      className={cellClass(c, fingerprint)}
                      title={title}
                      aria-label={title}
                      data-outcome={c.outcome}
                    >
                      {c.build ?? '·'}
                    </a>
                  );
                })}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <p className="strip-legend" data-testid="strip-legend" aria-label="legend">
        {LEGEND.map(([cls, text]) => (
          <span key={text} className={cls}>
            {text}
          </span>
        ))}
      </p>
    </div>
  );
}
