/** What is known of one request: its times, how it ended, its metrics and error, and its Seed-TTS transcript. */
import type { RequestView } from '../../../shared/runView/runModel.ts';
import { endingText } from '../../../shared/runView/runStory.ts';
import type { StopLike } from '../../../shared/requests/stopLabel.ts';
import { fmtNum } from '../../state/selectors.ts';

const ms = (t: number | null) => (t === null ? '–' : `${fmtNum(t, 1)} ms`);
/** A latency in seconds from the outcome, in ms; 0 means it never happened. */
const measured = (s: number) => (s > 0 ? `${fmtNum(s * 1000, 1)} ms` : '–');

export function RequestFacts({ row, stop }: { row: RequestView; stop?: StopLike }) {
  return (
    <table className="kv">
      <tbody>
        <TimeRows row={row} stop={stop} />
        <OutcomeRows row={row} />
        <AccuracyRows accuracy={row.accuracy} />
      </tbody>
    </table>
  );
}

function TimeRows({ row, stop }: { row: RequestView; stop?: StopLike }) {
  return (
    <>
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
          <td data-testid="request-ending">{endingText(row, stop)}</td>
        </tr>
      )}
      <tr>
        <th>attempts</th>
        <td>{row.attempts}</td>
      </tr>
    </>
  );
}

function OutcomeRows({ row }: { row: RequestView }) {
  const o = row.outcome;
  if (!o) return null;
  return (
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
      {o.error && (
        <tr>
          <th>error</th>
          <td className="err">{o.error}</td>
        </tr>
      )}
    </>
  );
}

function AccuracyRows({ accuracy: a }: { accuracy: RequestView['accuracy'] }) {
  if (!a) return null;
  return (
    <>
      <tr>
        <th>target text</th>
        <td data-testid="detail-reference">{a.reference}</td>
      </tr>
      <tr>
        <th>transcript</th>
        <td data-testid="detail-transcript">{a.transcript ?? '–'}</td>
      </tr>
      <tr>
        <th>WER</th>
        <td data-testid="detail-wer" className={a.error ? 'err' : undefined}>
          {a.wer !== null ? a.wer.toFixed(4) : `excluded: ${a.error ?? ''}${a.detail ? ` (${a.detail})` : ''}`}
        </td>
      </tr>
    </>
  );
}
