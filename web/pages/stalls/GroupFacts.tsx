/**
 * A group's onset (the last passing run before its first stall and that stall: the commits to bisect between)
 * and its rate per node of its scope, with the 95 % Wilson interval.
 */
import type { StallGroupReply } from '../../../shared/stalls/stallsApi.ts';
import { href } from '../../state/router.ts';
import { rateText, scopeName } from '../../state/stallsView.ts';
import { Commit } from '../../components/RunWhere.tsx';
import { NodeName } from './NodeName.tsx';

export function GroupFacts({ group: g }: { group: StallGroupReply }) {
  return (
    <>
      <p data-testid="onset">
        Onset:{' '}
        {g.onset.lastPassing ? (
          <>
            last passing{' '}
            <a href={href({ page: 'run', id: g.onset.lastPassing.runId })}>
              {g.onset.lastPassing.build ? `build ${g.onset.lastPassing.build}` : g.onset.lastPassing.runId}
            </a>
            {g.onset.lastPassing.commit && (
              <>
                {' '}
                (<Commit commit={g.onset.lastPassing.commit} />)
              </>
            )}{' '}
            →{' '}
          </>
        ) : (
          'no passing run before '
        )}
        first stalled{' '}
        <a href={href({ page: 'run', id: g.onset.firstStalled.runId })}>
          {g.onset.firstStalled.build ? `build ${g.onset.firstStalled.build}` : g.onset.firstStalled.runId}
        </a>
        {g.onset.firstStalled.commit && (
          <>
            {' '}
            (<Commit commit={g.onset.firstStalled.commit} />)
          </>
        )}
      </p>
      <table className="node-rates" data-testid="node-rates">
        <caption>This fingerprint per node of {scopeName(g)}</caption>
        <tbody>
          {g.nodeRates.map((n) => (
            <tr key={n.node} data-testid="node-rate" data-node={n.node}>
              <th>
                <NodeName node={n.node} />
              </th>
              <td className="num">
                {n.stalled} of {n.runs}
              </td>
              <td className="num">{rateText(n)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </>
  );
}
