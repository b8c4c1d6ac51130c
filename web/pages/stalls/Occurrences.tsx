/** Every run the fingerprint occurred in: when, where, links to each piece of its evidence, and its control. */
import type { StallGroupReply } from '../../../shared/stalls/stallsApi.ts';
import { ciBuildHref, runTitle } from '../../../shared/runInfo/runTitle.ts';
import { href } from '../../state/router.ts';
import { Commit } from '../../components/RunWhere.tsx';
import { NodeName } from './NodeName.tsx';
import { evidenceName, evidenceRoute } from '../../state/stallsView.ts';
import { dateTime } from '../../../shared/format.ts';

export function Occurrences({ group }: { group: StallGroupReply }) {
  return (
    <table className="occurrences" data-testid="occurrence-list">
      <thead>
        <tr>
          <th>When</th>
          <th>Build</th>
          <th>Node</th>
          <th>Commit</th>
          <th>Evidence</th>
          <th />
        </tr>
      </thead>
      <tbody>
        {group.evidence.map((o) => (
          <tr key={o.runId} data-testid="occurrence" data-run-id={o.runId}>
            <td>
              <a href={href({ page: 'run', id: o.runId })} title={o.runId}>
                {dateTime(o.atMs)}
                {' · '}
                {runTitle({
                  ci_build: o.build ?? undefined,
                  ci_step: group.step ?? undefined,
                }) ?? o.runId}
              </a>
            </td>
            <td>
              {o.build && ciBuildHref(o.buildUrl) ? (
                <a href={ciBuildHref(o.buildUrl)!} target="_blank" rel="noreferrer" data-testid="build-link">
                  {o.build}
                </a>
              ) : (
                (o.build ?? '–')
              )}
            </td>
            <td>{o.node ? <NodeName node={o.node} /> : '–'}</td>
            <td>{o.commit ? <Commit commit={o.commit} testId="commit" /> : '–'}</td>
            <td>
              {o.refs.map((ref) => (
                <a key={ref} href={href(evidenceRoute(o.runId, ref))} className="evidence" data-testid="evidence">
                  {evidenceName(ref)}
                </a>
              ))}
            </td>
            <td>
              {o.control && (
                <a href={href({ page: 'compare', ids: [o.runId, o.control] })}>compare with nearest passing control</a>
              )}
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
