/**
 * What the server still answered at the first stall (`server.liveness`;
 * docs/design.md#liveness-at-stall), beside the stall and server-stacks
 * cards: the sentence that localises the stall, then each question — health,
 * models, a text-only request — with how it went and how fast.
 */
import { livenessText, type LivenessReport } from '../../../shared/stalls/liveness.ts';

const OUTCOME_PILL: Record<LivenessReport['probes'][number]['outcome'], string> = {
  answered: 'pill pill-ok',
  failed: 'pill pill-bad',
  timed_out: 'pill pill-bad',
};

export function LivenessCard({ report: r }: { report: LivenessReport }) {
  return (
    <section className="panel liveness" aria-label="Liveness at the stall" data-testid="liveness">
      <h2>Liveness at the stall</h2>
      <p className="muted" data-testid="liveness-trigger">
        Asked at {r.trigger.atS.toFixed(2)} s, when {r.trigger.detail}; each question bounded to {r.boundMs} ms.
      </p>
      <p data-testid="liveness-summary">{livenessText(r)}</p>
      <table className="liveness-probes">
        <thead>
          <tr>
            <th scope="col">question</th>
            <th scope="col">outcome</th>
            <th scope="col">status</th>
            <th scope="col">time</th>
            <th scope="col">what came back</th>
          </tr>
        </thead>
        <tbody>
          {r.probes.map((p) => (
            <tr key={p.name} data-testid={`liveness-${p.name}`} data-outcome={p.outcome}>
              <td>
                <code>
                  {p.method} {p.path}
                </code>
                {p.name === 'text' ? ' (text only)' : ''}
              </td>
              <td>
                <span className={OUTCOME_PILL[p.outcome]}>{p.outcome.replace('_', ' ')}</span>
              </td>
              <td>{p.status ?? '—'}</td>
              <td>{Math.round(p.ms)} ms</td>
              <td className="muted">{p.error ?? p.detail ?? ''}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}
