/**
 * The realtime backends' attempt (docs/design.md#realtime): a run's
 * sessions and WebSockets live beside its attempt target (one per run), a
 * turn finds its session from its request id (`<prefix><index>`, the prefix
 * carried in the body), waits for the session's previous turn, then runs
 * (turn.ts). The body is this backend's own JSON (the turn's text, the
 * session's settings, the duplex input audio), never sent as is.
 */
import type { RequestRecord } from '../records/record.ts';
import { RealtimeSockets, DEFAULT_MAX_FRAME_BYTES, type Cancellation, type AttemptHooks } from '../transport/index.ts';
import type { EffectiveTimeouts } from '../../../shared/config/timeouts.ts';
import { REQUEST_BUDGET_CEILING_BYTES } from '../../../shared/config/memoryBudget.ts';
import { RealtimeSessions, type DuplexInput, type RealtimeSession, type RealtimeTarget } from './session.ts';
import { runRealtimeTurn, type TurnResult } from './turn.ts';
import { nativeSessionConfig } from './native.ts';

/** What buildBody puts in a realtime turn's body. */
export interface RealtimeBody {
  prefix: string;
  runId: string;
  numPrompts: number;
  turnsPerSession: number;
  model: string;
  text: string;
  instructions: string | null;
  extraBody: Record<string, unknown>;
  /**
   * openai-realtime-tts's flow: `native` (upstream's newest: a seeded model-native session per turn, native.ts) or
   * `turns` (upstream 2026-08-20: text turns on one session). Absent: `turns`, the body's older form.
   */
  flow?: 'native' | 'turns';
  input?: { pcm: string; contentBytes: number; sampleRateHz: number; trigger: 'explicit' | 'vad' };
}

export interface RealtimeRunTarget {
  origin: string;
  path: string;
  limits: EffectiveTimeouts;
  now: () => number;
  maxEventBytes?: number;
  /** The run's per-request byte budget (transport's AttemptTarget); absent: REQUEST_BUDGET_CEILING_BYTES. */
  budgetBytes?: number;
}

interface RunState {
  target: RealtimeTarget;
  /** Made by the run's first turn, which carries the grouping (the sweep may ask for the sockets first). */
  sessions: RealtimeSessions | null;
}

const runs = new WeakMap<object, RunState>();

/** The run's realtime sockets (created on first use), for the run's sweep. */
export function realtimeSocketsOf(target: object): RealtimeSockets {
  return stateOf(target as RealtimeRunTarget).target.sockets;
}

function stateOf(t: RealtimeRunTarget): RunState {
  let state = runs.get(t);
  if (state) return state;
  const sockets = new RealtimeSockets();
  const headers: Record<string, string> = {};
  const target: RealtimeTarget = {
    sockets,
    url: '',
    headers,
    limits: t.limits,
    now: t.now,
    maxFrameBytes: t.maxEventBytes ?? DEFAULT_MAX_FRAME_BYTES,
    budgetBytes: t.budgetBytes ?? REQUEST_BUDGET_CEILING_BYTES,
    sessionConfig: () => ({}),
    native: false,
  };
  state = { target, sessions: null };
  runs.set(t, state);
  return state;
}

/** The run's sessions: `turnsPerSession` consecutive turns each, named as vLLM-Omni names them (`seed-tts-<request id>`). */
function sessionsOf(state: RunState, body: RealtimeBody): RealtimeSessions {
  state.sessions ??= new RealtimeSessions(Math.max(1, body.turnsPerSession), (g) => `seed-tts-${body.prefix}${g}`);
  return state.sessions;
}

/** vLLM-Omni's realtime URL (`duplex=1`, the model, no autostart) and session settings. */
function configure(target: RealtimeTarget, url: URL, body: RealtimeBody): void {
  url.protocol = url.protocol === 'https:' ? 'wss:' : 'ws:';
  if (!url.searchParams.has('duplex')) url.searchParams.set('duplex', '1');
  if (!url.searchParams.has('model')) url.searchParams.set('model', body.model);
  url.searchParams.set('autostart', '0');
  target.url = url.toString();
  target.native = body.flow === 'native' && !body.input;
  if (target.native) {
    target.sessionConfig = (_session, job) => nativeSessionConfig(body.model, job.text, body.instructions);
    return;
  }
  const inputRate = body.input?.sampleRateHz ?? 16_000;
  const vad = body.input?.trigger === 'vad';
  target.sessionConfig = (session: RealtimeSession) => ({
    model: body.model,
    modalities: ['audio', 'text'],
    input_audio_format: 'pcm16',
    output_audio_format: 'pcm16',
    sample_rate_hz: inputRate,
    audio: { input: { sample_rate_hz: inputRate }, output: { sample_rate_hz: 24_000 } },
    turn_detection: vad
      ? {
          type: 'server_vad',
          threshold: 0.5,
          prefix_padding_ms: 300,
          silence_duration_ms: 800,
          create_response: true,
          interrupt_response: true,
        }
      : null,
    session_id: session.id,
    ...(body.instructions !== null ? { instructions: body.instructions } : {}),
    ...(body.input ? { temperature: 0 } : {}),
    overlap_policy: vad ? 'barge_in_on_speech' : 'listen_only',
    playback_commit_policy: 'ack_only',
    extra_body: { auto_response: false, ...(body.input ? {} : { native_duplex: false, return_stage_metrics: true }) },
  });
}

/** The realtime backends' attempt: one turn, in its session's order; never a transport retry. */
export async function realtimeAttempt(
  t: RealtimeRunTarget,
  headers: Record<string, string>,
  rawBody: string | Uint8Array,
  record: RequestRecord,
  cancel: Cancellation,
  hooks: AttemptHooks & { stopped?: () => unknown },
): Promise<TurnResult> {
  // This backend builds its bodies as text; bytes would only come from the shared prebuild path.
  const body = JSON.parse(
    typeof rawBody === 'string' ? rawBody : Buffer.from(rawBody).toString('utf8'),
  ) as RealtimeBody;
  const state = stateOf(t);
  if (state.target.url === '') configure(state.target, new URL(t.path, t.origin), body);
  for (const [k, v] of Object.entries(headers))
    if (k !== 'content-type' && k !== 'x-request-id') state.target.headers[k] = v;
  const requestId = headers['x-request-id'] ?? '';
  const suffix = requestId.startsWith(body.prefix) ? requestId.slice(body.prefix.length) : '';
  const index = /^\d+$/.test(suffix) ? Number(suffix) : -1;
  const n = Math.max(1, body.numPrompts);
  // A ready-check or warm-up request (not `<prefix><index>`) is a session of its own, one turn long.
  const sessions = sessionsOf(state, body);
  const { session, turn, lastTurn } = index >= 0 ? sessions.of(index, n) : sessions.standalone(`seed-tts-${requestId}`);
  const input: DuplexInput | undefined = body.input
    ? { ...body.input, pcm: Buffer.from(body.input.pcm, 'base64') }
    : undefined;
  const job = { index, requestId, promptLen: record.promptLen, text: body.text, turn, lastTurn, input };
  return sessions.inOrder(session, turn, () => {
    // The turn's clock starts when it can send, not while it waits for the previous turn of its session.
    record.startTime = state.target.now();
    return runRealtimeTurn(state.target, session, job, record, cancel, hooks);
  });
}
