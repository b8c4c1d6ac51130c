/**
 * Liveness at the stall (docs/design.md#liveness-at-stall): at the first
 * stall evidence the client asks the server what still works — `GET
 * /health`, `GET /v1/models`, one short text-only chat request — and records
 * what answered and how fast (result key `liveness_at_stall`, event
 * `server.liveness`). A healthy server with a working text path and silent
 * benchmark requests localises the stall to the audio path (talker /
 * Code2Wav) with no change on the server.
 */
import { Type, type Static } from 'typebox';

export const LIVENESS_PROBES = ['health', 'models', 'text'] as const;
export type LivenessProbeName = (typeof LIVENESS_PROBES)[number];

/** One question asked of the server and how it went. */
export const LivenessProbeSchema = Type.Object({
  name: Type.Enum(LIVENESS_PROBES),
  method: Type.Union([Type.Literal('GET'), Type.Literal('POST')]),
  path: Type.String({ maxLength: 1024 }),
  /** `answered`: a 2xx reply, read whole; `failed`: another status or a connection error; `timed_out`: no reply within the bound. */
  outcome: Type.Union([Type.Literal('answered'), Type.Literal('failed'), Type.Literal('timed_out')]),
  /** HTTP status when one came. */
  status: Type.Union([Type.Integer(), Type.Null()]),
  /** Milliseconds from sending to the whole reply (or to giving up). */
  ms: Type.Number(),
  /** What was wrong (a status line, a connection error, the bound), or null. */
  error: Type.Union([Type.String({ maxLength: 1024 }), Type.Null()]),
  /** A short excerpt of what answered (the text, the model ids), or null. */
  detail: Type.Union([Type.String({ maxLength: 256 }), Type.Null()]),
});
export type LivenessProbe = Static<typeof LivenessProbeSchema>;

/** What first said the run stalled. */
export const LivenessTriggerSchema = Type.Object({
  /** `timeout`: a structural timeout; `no_progress`: the no_progress stop rule; `silence`: --server-stall-after-s. */
  kind: Type.Union([Type.Literal('timeout'), Type.Literal('no_progress'), Type.Literal('silence')]),
  /** Seconds from the run clock's start. */
  atS: Type.Number(),
  /** In words, e.g. "request #4 hit its total timeout after 900.0 s". */
  detail: Type.String({ maxLength: 1024 }),
});

export const LivenessReportSchema = Type.Object({
  trigger: LivenessTriggerSchema,
  /** The bound on each question, in milliseconds (they are asked together). */
  boundMs: Type.Number(),
  probes: Type.Array(LivenessProbeSchema, { maxItems: LIVENESS_PROBES.length }),
  /** The run's own requests at the trigger: how many were in flight, and the longest any went without a byte. */
  stalled: Type.Object({ inFlight: Type.Integer({ minimum: 0 }), silentS: Type.Number() }),
});
export type LivenessReport = Static<typeof LivenessReportSchema>;

const WHAT: Record<LivenessProbeName, string> = {
  health: 'health',
  models: '/v1/models',
  text: 'a text-only request',
};

const ms = (v: number): string => `${Math.round(v)} ms`;

/** One probe in words: "health in 3 ms", "a text-only request timed out after 2000 ms". */
export function probeText(p: LivenessProbe): string {
  if (p.outcome === 'answered') return `${WHAT[p.name]} in ${ms(p.ms)}`;
  if (p.outcome === 'timed_out') return `${WHAT[p.name]} did not answer within ${ms(p.ms)}`;
  return `${WHAT[p.name]} failed after ${ms(p.ms)} (${p.error ?? 'no reply'})`;
}

function listText(parts: string[]): string {
  return parts.length <= 1 ? (parts[0] ?? '') : `${parts.slice(0, -1).join(', ')} and ${parts[parts.length - 1]}`;
}

/**
 * The report in one sentence: "The server answers health in 3 ms, /v1/models
 * in 2 ms and a text-only request in 41 ms, but none of the run's 2 requests
 * in flight has received a byte for 62.0 s: the server and its text path are
 * alive; the stall is on the audio path (talker / Code2Wav)."
 */
export function livenessText(r: LivenessReport): string {
  const answered = r.probes.filter((p) => p.outcome === 'answered');
  const silent = r.probes.filter((p) => p.outcome !== 'answered');
  const n = r.stalled.inFlight;
  const stalled =
    n > 0
      ? `none of the run's ${n} request${n === 1 ? '' : 's'} in flight has received a byte for ${r.stalled.silentS.toFixed(1)} s`
      : `the run's requests had made no progress for ${r.stalled.silentS.toFixed(1)} s`;
  const up = (name: LivenessProbeName) => answered.some((p) => p.name === name);
  if (silent.length === 0)
    return `The server answers ${listText(answered.map(probeText))}, but ${stalled}: the server and its text path are alive; the stall is on the audio path (talker / Code2Wav).`;
  if (answered.length === 0)
    return `The server answers nothing (${listText(silent.map(probeText))}) and ${stalled}: the whole process is stuck or gone.`;
  const why =
    up('health') && up('text')
      ? 'the server and its text path are alive; the stall is on the audio path (talker / Code2Wav)'
      : up('health')
        ? 'the server is up, but its text path is stuck too (the thinker, or the whole engine)'
        : 'the server answers only in part';
  return `The server answers ${listText(answered.map(probeText))}; ${listText(silent.map(probeText))}; ${stalled}: ${why}.`;
}
