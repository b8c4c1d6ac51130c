/**
 * A group's onset (the last passing run before its first stall and that stall: the commits to bisect between)
 * and its rate per node of its scope, with the 95 % Wilson interval.
 */
import type { StallGroupReply } from '../../../shared/stalls/stallsApi.ts';
import { href } from '../../state/router.ts';
import { rateText, scopeName } from '../../state/stallsView.ts';

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
                (<code>{g.onset.lastPassing.commit.slice(0, 12)}</code>)
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
            (<code>{g.onset.firstStalled.commit.slice(0, 12)}</code>)
          </>
        )}
      </p>
      <table className="node-rates" data-testid="node-rates">
        <caption>This fingerprint per node of {scopeName(g)}</caption>
        <tbody>
          {g.nodeRates.map((n) => (
            <tr key={n.node} data-testid="node-rate" data-node={n.node}>
              <th>{n.node}</th>
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
