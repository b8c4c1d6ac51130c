/**
 * Detail of one request: its times, metrics, error, and its Code2Wav
 * operations phase by phase. Brought into view when it opens or shows another
 * request (at 1024 px it sits under the whole timeline), with a link to itself.
 */
import { useEffect, useRef } from 'react';
import type { OpRecord, RequestView } from '../state/runModel.ts';
import { endingText } from '../state/runStory.ts';
import { fmtNum } from '../state/selectors.ts';

const ms = (t: number | null) => (t === null ? '–' : `${fmtNum(t, 1)} ms`);
/** A latency in seconds from the outcome, in ms; 0 means it never happened. */
const measured = (s: number) => (s > 0 ? `${fmtNum(s * 1000, 1)} ms` : '–');

export function RequestDetail({
  row,
  ops,
  nowT,
  link,
  onClose,
}: {
  row: RequestView;
  ops: readonly OpRecord[];
  nowT: number;
  /** The deep link that opens this request (`#/runs/ID?req=N`). */
  link?: string;
  onClose: () => void;
}) {
  const o = row.outcome;
  const box = useRef<HTMLElement>(null);
  useEffect(() => {
    box.current?.scrollIntoView({ block: 'nearest' });
  }, [row.index]);
  return (
    <aside ref={box} className="detail" aria-label={`Request ${row.index}`} data-testid="request-detail">
      <header>
        <h2>
          Request #{row.index} <span className={`pill end-${row.status}`}>{row.status.replace(/_/g, ' ')}</span>
        </h2>
        <span className="detail-actions">
          {link && (
            <a href={link} className="small" data-testid="request-link" title="A link that opens this request">
              link
            </a>
          )}
          <button type="button" onClick={onClose} aria-label="Close request detail">
            ×
          </button>
        </span>
      </header>
      <table className="kv">
        <tbody>
          <tr>
            <th>request id</th>
            <td>
              <code>{row.requestId || '–'}</code>
            </td>
          </tr>
          <tr>
            <th>queued / sent</th>
            <td>
              {ms(row.queuedT)} / {ms(row.sentT)}
            </td>
          </tr>
          <tr>
            <th>first token / first audio</th>
            <td>
              {ms(row.firstTokenT)} / {ms(row.firstAudioT)}
            </td>
          </tr>
          <tr>
            <th>ended</th>
            <td>
              {ms(row.endT)}
              {row.timeoutKind ? ` (${row.timeoutKind} timeout)` : ''}
            </td>
          </tr>
          {row.endT !== null && (
            <tr>
              <th>outcome</th>
              <td data-testid="request-ending">{endingText(row)}</td>
            </tr>
          )}
          <tr>
            <th>attempts</th>
            <td>{row.attempts}</td>
          </tr>
          {o && (
            <>
              <tr>
                <th>TTFT</th>
                <td>{measured(o.ttftS)}</td>
              </tr>
              {/* The result's e2el is 0 for a request that did not complete: say so, not "0 ms". */}
              <tr>
                <th>E2E latency</th>
                <td data-testid="request-e2el">
                  {row.status === 'completed' ? measured(o.e2elS) : 'none: the request did not complete'}
                </td>
              </tr>
              <tr>
                <th>audio TTFP</th>
                <td>{measured(o.audioTtfpS)}</td>
              </tr>
              <tr>
                <th>audio duration</th>
                <td>{fmtNum(o.audioDurationS, 2)} s</td>
              </tr>
              <tr>
                <th>output / prompt tokens</th>
                <td>
                  {o.outputTokens} / {o.promptLen}
                </td>
              </tr>
            </>
          )}
          {o?.error && (
            <tr>
              <th>error</th>
              <td className="err">{o.error}</td>
            </tr>
          )}
          {row.accuracy && (
            <>
              <tr>
                <th>target text</th>
                <td data-testid="detail-reference">{row.accuracy.reference}</td>
              </tr>
              <tr>
                <th>transcript</th>
                <td data-testid="detail-transcript">{row.accuracy.transcript ?? '–'}</td>
              </tr>
              <tr>
                <th>WER</th>
                <td data-testid="detail-wer" className={row.accuracy.error ? 'err' : undefined}>
                  {row.accuracy.wer !== null
                    ? row.accuracy.wer.toFixed(4)
                    : `excluded: ${row.accuracy.error ?? ''}${row.accuracy.detail ? ` (${row.accuracy.detail})` : ''}`}
                </td>
              </tr>
            </>
          )}
        </tbody>
      </table>
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
    </aside>
  );
}
