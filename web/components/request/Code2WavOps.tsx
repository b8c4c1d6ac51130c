/** The Code2Wav operations that decoded one request, phase by phase, with how long each phase took. */
import type { OpRecord } from '../../../shared/runView/runModel.ts';
import { fmtNum } from '../../state/selectors.ts';

export function Code2WavOps({ ops, nowT }: { ops: readonly OpRecord[]; nowT: number }) {
  return (
    <>
      <h3>Code2Wav operations ({ops.length})</h3>
      {ops.length === 0 ? (
        <p className="muted">No Code2Wav telemetry for this request.</p>
      ) : (
        <ol className="ops">
          {ops.map((op) => (
            <li key={op.key} className={op.stalled ? 'stalled' : ''}>
              <div>
                worker {op.workerId} · op {op.opId} · batch of {op.requestIds.length} ·{' '}
                {op.endT === null
                  ? `open for ${fmtNum(nowT - op.beginT, 0)} ms`
                  : `${fmtNum(op.endT - op.beginT, 1)} ms`}
                {op.ok === false ? ` · failed: ${op.error ?? ''}` : ''}
                {op.stalled ? ' · stalled' : ''}
              </div>
              <ul className="op-phases">
                {op.phases.map((p, i) => {
                  const end = op.phases[i + 1]?.t ?? op.endT ?? nowT;
                  return (
                    <li key={i}>
                      <b>{p.phase}</b> {fmtNum(end - p.t, 1)} ms{' '}
                      <span className="muted">
                        {Object.entries(p.details)
                          .map(([k, v]) => `${k}=${String(v)}`)
                          .join(' ')}
                      </span>
                    </li>
                  );
                })}
              </ul>
            </li>
          ))}
        </ol>
      )}
    </>
  );
}
