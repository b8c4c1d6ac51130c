/**
 * One fingerprint: its row (label, phase, top frames, occurrences, first and
 * last seen, builds, nodes, commits), then its jobs' strips with the sentence,
 * its passing controls, Compare with the nearest one, and every occurrence.
 */
import type { StallGroupReply } from '../../../shared/stalls/stallsApi.ts';
import { href } from '../../state/router.ts';
import { compareIds, rateText, scopeName } from '../../state/stallsView.ts';
import { dateTime } from '../../../shared/format.ts';
import type { ReactNode } from 'react';
import { Commit } from '../../components/RunWhere.tsx';
import { JobStripView } from './JobStripView.tsx';
import { NodeName } from './NodeName.tsx';
import { GroupFacts } from './GroupFacts.tsx';
import { Occurrences } from './Occurrences.tsx';

const list = (xs: readonly string[]) => (xs.length ? xs.join(', ') : '–');
/** Items one per line: a long node name or commit never shares a line it could be broken on. */
const joined = (xs: ReactNode[]) =>
  xs.map((x, i) => (
    <span key={i} className="stack-item">
      {x}
    </span>
  ));

export function StallGroupRows({ group: g }: { group: StallGroupReply }) {
  const compare = compareIds(g);
  return (
    <tbody
      className="stall-group"
      data-testid="stall-group"
      data-fingerprint={g.fingerprint}
      data-phase={g.phase}
      data-scope={g.scope}
      data-step={g.step ?? ''}
    >
      <tr className="stall-row">
        <td>
          <strong data-testid="stall-label">{g.label}</strong>
          <br />
          <span className="muted" data-testid="stall-scope">
            {scopeName(g)}
          </span>
          <br />
          <code className="muted" title="fingerprint">
            {g.fingerprint}
          </code>
        </td>
        <td>
          <span className="pill pill-bad">{g.phase}</span>
        </td>
        <td>
          {g.frames.length ? (
            <ol className="frames">
              {g.frames.map((f) => (
                <li key={f}>
                  <code>{f}</code>
                </li>
              ))}
            </ol>
          ) : (
            <span className="muted">no stack (a timeout seen from the client)</span>
          )}
        </td>
        <td className="num">
          <span data-testid="occurrences">{g.occurrences}</span> of {g.scopeRuns}
          <br />
          <span className="muted" data-testid="group-rate" title="hang rate and its 95 % Wilson interval">
            {rateText(g)}
          </span>
        </td>
        <td data-testid="seen">
          <span className="stack-item">{dateTime(g.firstSeen)}</span>
          <span className="stack-item">{dateTime(g.lastSeen)}</span>
        </td>
        <td data-testid="builds">{list(g.builds)}</td>
        <td data-testid="nodes">{g.nodes.length ? joined(g.nodes.map((n) => <NodeName key={n} node={n} />)) : '–'}</td>
        <td>{g.commits.length ? joined(g.commits.map((c) => <Commit key={c} commit={c} testId="commit" />)) : '–'}</td>
      </tr>
      <tr className="stall-detail">
        <td colSpan={8}>
          <GroupFacts group={g} />
          {g.jobs.map((j) => (
            <JobStripView key={`${j.pipeline}\u0000${j.step}`} job={j} fingerprint={g.fingerprint} />
          ))}
          <p data-testid="controls">
            Passing controls:{' '}
            {g.controls.runs.length === 0
              ? 'none (no run of the same job passed without a stall)'
              : g.controls.runs.map((id, i) => (
                  <a key={id} href={href({ page: 'run', id })} className="control">
                    {g.controls.builds[i] ? `build ${g.controls.builds[i]}` : id}
                  </a>
                ))}{' '}
            {compare && (
              <a className="button" href={href({ page: 'compare', ids: compare })} data-testid="compare-control">
                Compare the latest with its nearest passing control
              </a>
            )}
          </p>
          <Occurrences group={g} />
        </td>
      </tr>
    </tbody>
  );
}
