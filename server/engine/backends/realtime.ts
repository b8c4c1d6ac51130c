/**
 * `openai-realtime-tts` and `openai-realtime-duplex`: one prompt is one turn
 * of a WebSocket session on `/v1/realtime` (docs/design.md#realtime; the
 * client is server/engine/realtime/). The body is this backend's own JSON,
 * read by its attempt and never sent as is: the request-id prefix (the turn
 * finds its session from its request id), the turn's text and instructions
 * (the row's system prompt), the turns per session, and for duplex the
 * row's prompt speech (duplexInput.ts) with how the turn ends its input
 * (`--extra-body '{"realtime_trigger": "vad"}'`, vLLM-Omni's key; default
 * an explicit commit). Each turn's session, place and receive times become
 * its record's realtime* columns; the result gets vLLM-Omni's duplex_* keys.
 */
import type { RunConfig } from '../../../shared/config/runConfig.ts';
import type { SampleRequest } from '../datasets/sample.ts';
import type { AttemptFn, AttemptResult } from '../transport/index.ts';
import type { RequestRecord } from '../records/record.ts';
import { requestIdPrefix } from './requestBody.ts';
import { realtimeAttempt, realtimeSocketsOf, type RealtimeBody } from '../realtime/backend.ts';
import type { RealtimeRecord } from '../realtime/turnReader.ts';
import { readDuplexInput, DUPLEX_INPUT_RATE_HZ } from '../realtime/duplexInput.ts';
import { realtimeTrigger, realtimeTtsFlow } from '../realtime/validate.ts';
import { realtimeResultKeys, turnE2elKeys, turnTimingOf } from '../../../shared/metrics/realtime.ts';
import type { MetricInput, RecordList } from '../../../shared/metrics/input.ts';
import type { EndedRecord } from '../records/record.ts';
import { promptText } from './speech.ts';
import type { Backend } from './backend.ts';

/** The output PCM rate vLLM-Omni's realtime client asks for (and computes durations with). */
const OUTPUT_RATE_HZ = 24_000;

function systemText(messages: readonly unknown[]): string | null {
  for (const m of messages as { role?: unknown; content?: unknown }[]) {
    if (m?.role !== 'system') continue;
    if (typeof m.content === 'string') return m.content;
    if (Array.isArray(m.content))
      return m.content.map((p: { text?: unknown }) => (typeof p?.text === 'string' ? p.text : '')).join('');
  }
  return null;
}

async function buildRealtimeBody(config: RunConfig, sample: SampleRequest, duplex: boolean): Promise<string> {
  const body: RealtimeBody = {
    prefix: requestIdPrefix(config),
    runId: config.runId,
    numPrompts: config.workload.numPrompts,
    turnsPerSession: config.workload.turnsPerSession ?? 1,
    model: config.target.servedModelName || config.target.model,
    text: promptText(sample.messages),
    instructions: systemText(sample.messages),
    extraBody: config.workload.extraBody ?? {},
    ...(duplex ? {} : { flow: realtimeTtsFlow(config) }),
  };
  if (duplex) {
    const path = sample.seedTts?.wavPath;
    if (!path) throw new Error('openai-realtime-duplex needs the Seed-TTS row’s prompt WAV as its input speech');
    const { pcm, contentBytes } = await readDuplexInput(path);
    body.input = {
      pcm: pcm.toString('base64'),
      contentBytes,
      sampleRateHz: DUPLEX_INPUT_RATE_HZ,
      trigger: realtimeTrigger(config),
    };
  }
  return JSON.stringify(body);
}

/** The shared attempt seam around the realtime turn; the turn's timings become the record's columns. */
const attempt: AttemptFn = async (target, headers, body, record, cancel, hooks): Promise<AttemptResult> => {
  const result = await realtimeAttempt(target, headers, body, record, cancel, hooks);
  keepTurnTimes(record);
  return result;
};

function keepTurnTimes(record: RequestRecord): void {
  const t = (record as RealtimeRecord).realtime;
  if (!t) return;
  const rec: EndedRecord = record;
  rec.realtimeSessionId = t.sessionId;
  rec.realtimeTurn = t.turn;
  if (t.responseId !== null) rec.realtimeResponseId = t.responseId;
  if (t.trigger) rec.realtimeTrigger = t.trigger;
  if (t.firstTextTs !== null) rec.realtimeTtftS = t.firstTextTs - t.originTs;
  if (t.firstAudioTs !== null) rec.realtimeTtfpS = t.firstAudioTs - t.originTs;
  if (t.lastAudioTs !== null) rec.realtimeGenerationS = t.lastAudioTs - t.originTs;
  rec.realtimeAudioBytes = t.audioBytes;
  if (t.doneTs !== null) rec.realtimeDoneS = t.doneTs - t.originTs;
  if (t.stage0) rec.realtimeStage0 = true;
  if (typeof t.tpotMs === 'number') rec.realtimeTpotMs = t.tpotMs;
}

/**
 * vLLM-Omni's `duplex_request_metrics` / `duplex_session_metrics`: written by the tts path only when
 * `--extra-body` has `save_duplex_request_metrics: true` (as upstream's realtime TTS client), always by the
 * duplex path (as upstream's Seed-TTS duplex client returns them with every request). The native tts flow adds
 * stallscope's turn-level E2EL keys (`*_turn_e2el_ms`), always: upstream's `*_e2el_ms` time its whole session.
 */
function resultKeysOf(duplex: boolean) {
  return (records: RecordList<MetricInput>, _detailed: boolean, config?: RunConfig): Record<string, unknown> => {
    const rows = records as RecordList<EndedRecord>;
    const native = !duplex && config !== undefined && realtimeTtsFlow(config) === 'native';
    const turnE2el = native ? turnE2elKeys(rows, config.output.metricPercentiles) : {};
    if (!duplex && config?.workload.extraBody?.save_duplex_request_metrics !== true) return turnE2el;
    const turns = Array.from(rows, (r) => {
      const timing = turnTimingOf(r);
      return { timing: timing && native ? { ...timing, native } : timing, success: r.success };
    });
    return { ...realtimeResultKeys(turns, OUTPUT_RATE_HZ), ...turnE2el };
  };
}

export const REALTIME_TTS_BACKEND: Backend = {
  name: 'openai-realtime-tts',
  buildBody: (config, sample) => buildRealtimeBody(config, sample, false),
  attempt,
  sockets: (target) => realtimeSocketsOf(target),
  resultKeys: resultKeysOf(false),
  // The warm-up streams a recorded chat answer over HTTP: nothing of a WebSocket session's path.
  warmsWithRecordedChat: false,
  // Seed-TTS turns speak their prompt's target text (duplex too, which inherits this).
  speaksPrompt: true,
};

export const REALTIME_DUPLEX_BACKEND: Backend = {
  ...REALTIME_TTS_BACKEND,
  name: 'openai-realtime-duplex',
  buildBody: (config, sample) => buildRealtimeBody(config, sample, true),
  resultKeys: resultKeysOf(true),
};
