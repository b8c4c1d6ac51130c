/** What is known of one request: its times, how it ended, its metrics and error, and its Seed-TTS transcript. */
import type { RequestView } from '../../../shared/runView/runModel.ts';
import { endingText } from '../../../shared/runView/runStory.ts';
import type { StopLike } from '../../../shared/requests/stopLabel.ts';
import { measuredOf } from '../../../shared/requests/measured.ts';
import { fmtNum } from '../../state/selectors.ts';

const ms = (t: number | null) => (t === null ? '–' : `${fmtNum(t, 1)} ms`);
/** A latency in seconds, in ms; null (never measured, a blank in the CSV) is "–", never "0 ms". */
const latency = (s: number | null) => (s === null ? '–' : `${fmtNum(s * 1000, 1)} ms`);

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
        {/* Moments on the run clock (ms since the run started), not latencies: TTFT below is measured from the send. */}
        <th title="ms since the run started">queued / sent at</th>
        <td>
          {ms(row.queuedT)} / {ms(row.sentT)}
        </td>
      </tr>
      <tr>
        <th title="ms since the run started; TTFT and audio TTFP below are measured from the send">
          first token / first audio at
        </th>
        <td>
          {ms(row.firstTokenT)} / {ms(row.firstAudioT)}
        </td>
      </tr>
      <tr>
        <th title="ms since the run started">ended at</th>
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
  // The values the CSV has, by the same rule (a blank there is "–" here, never "0 s").
  const m = measuredOf({ ...o, status: row.status, firstTokenT: row.firstTokenT, firstAudioT: row.firstAudioT });
  return (
    <>
      <tr>
        <th title="time to first token, from the send to the first token (the engine's clock, as vLLM measures it)">
          TTFT (from sent)
        </th>
        <td data-testid="request-ttft">{latency(m.ttftS)}</td>
      </tr>
      <tr>
        <th>E2E latency</th>
        <td data-testid="request-e2el">{m.e2elS !== null ? latency(m.e2elS) : 'none: the request did not complete'}</td>
      </tr>
      <tr>
        <th title="time to first audio packet, from the send">audio TTFP (from sent)</th>
        <td>{latency(m.audioTtfpS)}</td>
      </tr>
      <tr>
        <th>audio duration</th>
        <td data-testid="request-audio-duration">
          {m.audioDurationS === null ? '–' : `${fmtNum(m.audioDurationS, 2)} s`}
        </td>
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
      {/* What the server answered: its status and its body's first line (bounded by the engine; React escapes it). */}
      {o.http && (
        <tr>
          <th>answer</th>
          <td data-testid="request-http">
            HTTP {o.http.status}
            {o.http.bodyLine !== null && (
              <>
                : <code className="body-line">{o.http.bodyLine}</code>
              </>
            )}
          </td>
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
