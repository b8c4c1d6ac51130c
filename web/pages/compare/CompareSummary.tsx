/** One column per compared run: its verdict, counts (with the parts of failed), breaker and stall reports. */
import type { ReactNode } from 'react';
import type { RunDetail } from '../../../shared/protocol/apiSchemas.ts';
import { normalizeCounts } from '../../../shared/requests/outcomes.ts';
import { StatusBadge } from '../../components/StatusBadge.tsx';
import { navigate, href } from '../../state/router.ts';
import { FAILED_PARTS, partLabel } from '../../../shared/runView/runStory.ts';
import { stoppedByRule } from '../../../shared/requests/stopLabel.ts';
import { nameOf } from './runName.ts';
import { RunWhere } from '../../components/RunWhere.tsx';
import { identityText } from '../../../shared/runInfo/serverIdentity.ts';
import { count, dateTime } from '../../../shared/format.ts';

function breakerText(r: RunDetail): string {
  if (r.breaker.tripped && r.breaker.cause) return `tripped by #${r.breaker.cause.requestIndex}`;
  if (r.breaker.tripped) return `tripped by ${r.breaker.stoppedBy?.rule ?? 'a stop rule'}`;
  return r.failFast ? 'armed, not tripped' : 'off';
}

/** A row with one cell per run. */
function PerRun({
  runs,
  label,
  cell,
}: {
  runs: readonly RunDetail[];
  label: string;
  cell: (r: RunDetail) => ReactNode;
}) {
  return (
    <tr>
      <th>{label}</th>
      {runs.map((r) => (
        <td key={r.id}>{cell(r)}</td>
      ))}
    </tr>
  );
}

export function CompareSummary({ runs, ids }: { runs: readonly RunDetail[]; ids: string[] }) {
  return (
    <div className="table-wrap">
      <table className="compare-summary">
        <thead>
          <tr>
            <th />
            {runs.map((r) => (
              <th key={r.id}>
                <a href={href({ page: 'run', id: r.id })}>{nameOf(r)}</a>{' '}
                {nameOf(r) !== r.id && <code className="muted small run-id">{r.id}</code>}{' '}
                <button
                  type="button"
                  className="link"
                  onClick={() => navigate({ page: 'compare', ids: ids.filter((x) => x !== r.id) })}
                  aria-label={`Remove ${nameOf(r)}`}
                >
                  ×
                </button>
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          <PerRun runs={runs} label="verdict" cell={(r) => <StatusBadge verdict={r.verdict} status={r.status} />} />
          <PerRun runs={runs} label="happened" cell={(r) => dateTime(r.startedAtMs ?? r.createdAtMs)} />
          <PerRun runs={runs} label="server" cell={(r) => identityText(r.serverIdentity)} />
          <PerRun
            runs={runs}
            label="where"
            cell={(r) =>
              r.metadata.ci_build || r.metadata.ci_node || r.metadata.ci_commit ? (
                <RunWhere metadata={r.metadata} others={false} />
              ) : (
                '–'
              )
            }
          />
          <PerRun runs={runs} label="requests" cell={(r) => count(r.counts.total)} />
          <tr>
            <th>completed</th>
            {runs.map((r) => (
              <td key={r.id} className={`c-completed${r.counts.completed === 0 ? ' zero' : ''}`}>
                {count(r.counts.completed)}
              </td>
            ))}
          </tr>
          <PerRun runs={runs} label="failed" cell={(r) => count(r.counts.failed)} />
          {/* The parts of failed, named as on the run page's cards (web/state/runStory.ts). */}
          {/* The requests a stop cancelled are named per run by the rule that stopped it (shared/requests/stopLabel.ts). */}
          {FAILED_PARTS.map((p) => (
            <tr key={p.id} className="part">
              <th title={p.title}>… {p.key === 'cancelledAfterTimeout' ? 'cancelled by the stop' : p.label}</th>
              {runs.map((r) => {
                const n = normalizeCounts(r.counts)[p.key];
                const stop = r.breaker.stoppedBy;
                const named = p.key === 'cancelledAfterTimeout' && n > 0;
                return (
                  <td key={r.id} data-testid={named ? 'compare-stop-part' : undefined}>
                    {count(n)}
                    {named && <span className={stoppedByRule(stop) ? '' : 'muted'}> {partLabel(p, stop)}</span>}
                  </td>
                );
              })}
            </tr>
          ))}
          <PerRun runs={runs} label="breaker" cell={breakerText} />
          <PerRun
            runs={runs}
            label="stall reports"
            cell={(r) => (
              <>
                {count(r.stallCount)}
                {r.stallPhase ? ` (${r.stallPhase})` : ''}
              </>
            )}
          />
        </tbody>
      </table>
    </div>
  );
}
