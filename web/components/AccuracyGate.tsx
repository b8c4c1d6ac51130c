/** The Seed-TTS gate of a run: mean and median WER against the bounds, and what was evaluated or excluded. */
import type { GateView } from '../state/accuracy.ts';
import { fmtNum } from '../state/selectors.ts';

const wer = (v: number | null) => (v === null ? '–' : v.toFixed(4));

export function AccuracyGate({ gate }: { gate: GateView }) {
  const excluded = gate.requestFailed + gate.noAudio + gate.asrFailed;
  return (
    <section className="panel accuracy-gate" data-testid="accuracy-gate" aria-label="Seed-TTS WER gate">
      <h2>
        Seed-TTS WER gate{' '}
        <span className="muted">
          {gate.final ? 'final' : `transcribing ${gate.done}/${gate.total}`}
          {gate.asrModel ? ` · ${gate.asrModel}` : ''}
        </span>
      </h2>
      <table className="kv">
        <tbody>
          <tr>
            <th>mean WER</th>
            <td data-testid="gate-mean">{wer(gate.mean)}</td>
          </tr>
          <tr>
            <th>median WER</th>
            <td data-testid="gate-median">{wer(gate.median)}</td>
          </tr>
          {gate.bounds.map((b) => (
            <tr key={b.expr} className={b.holds === false ? 'err' : undefined}>
              <th>bound</th>
              <td data-testid="gate-bound">
                <code>{b.expr}</code> {b.holds === null ? '…' : b.holds ? '✓ holds' : '✗ fails'}
              </td>
            </tr>
          ))}
          {gate.bounds.length === 0 && (
            <tr>
              <th>bound</th>
              <td className="muted">none (add --threshold &apos;seed_tts_content_error_mean&lt;=0.05&apos;)</td>
            </tr>
          )}
          <tr>
            <th>evaluated / excluded</th>
            <td data-testid="gate-counts">
              {fmtNum(gate.evaluated)} / {fmtNum(excluded)}
              {excluded > 0 &&
                ` (request failed ${gate.requestFailed}, no audio ${gate.noAudio}, recognition failed or empty ${gate.asrFailed})`}
            </td>
          </tr>
          {gate.final && gate.evaluated === 0 && (
            <tr className="err">
              <th>gate</th>
              <td>fails: no utterance could be evaluated</td>
            </tr>
          )}
        </tbody>
      </table>
    </section>
  );
}
