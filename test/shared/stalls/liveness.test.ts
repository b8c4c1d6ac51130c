/**
 * What the liveness report says (shared/stalls/liveness.ts): health and text up
 * while the run's requests are silent puts the stall on the audio path;
 * health up with text silent puts it on the thinker; nothing answering, on
 * the whole process.
 */
import { describe, expect, it } from 'vitest';
import { livenessText, type LivenessProbe, type LivenessReport } from '#shared/stalls/liveness.ts';

const answered = (name: LivenessProbe['name'], ms: number): LivenessProbe => ({
  name,
  method: name === 'text' ? 'POST' : 'GET',
  path: { health: '/health', models: '/v1/models', text: '/v1/chat/completions' }[name],
  outcome: 'answered',
  status: 200,
  ms,
  error: null,
  detail: null,
});
const silent = (name: LivenessProbe['name']): LivenessProbe => ({
  ...answered(name, 2000.4),
  outcome: 'timed_out',
  status: null,
  error: 'no reply within 2000 ms',
});
const report = (probes: LivenessProbe[], inFlight = 2): LivenessReport => ({
  trigger: { kind: 'no_progress', atS: 70, detail: 'the stop rule no_progress>=60s tripped' },
  boundMs: 2000,
  probes,
  stalled: { inFlight, silentS: 62 },
});

describe('livenessText', () => {
  it('health and text answer, the run is silent: the stall is on the audio path', () => {
    expect(livenessText(report([answered('health', 3.2), answered('models', 2), answered('text', 41)]))).toBe(
      "The server answers health in 3 ms, /v1/models in 2 ms and a text-only request in 41 ms, but none of the run's 2 requests in flight has received a byte for 62.0 s: the server and its text path are alive; the stall is on the audio path (talker / Code2Wav).",
    );
  });

  it('health answers, text does not: the thinker (or the whole engine) is stuck', () => {
    expect(livenessText(report([answered('health', 3), answered('models', 2), silent('text')], 1))).toBe(
      "The server answers health in 3 ms and /v1/models in 2 ms; a text-only request did not answer within 2000 ms; none of the run's 1 request in flight has received a byte for 62.0 s: the server is up, but its text path is stuck too (the thinker, or the whole engine).",
    );
  });

  it('nothing answers: the whole process', () => {
    expect(livenessText(report([silent('health'), silent('models'), silent('text')]))).toBe(
      "The server answers nothing (health did not answer within 2000 ms, /v1/models did not answer within 2000 ms and a text-only request did not answer within 2000 ms) and none of the run's 2 requests in flight has received a byte for 62.0 s: the whole process is stuck or gone.",
    );
  });
});
