/**
 * vLLM-Omni's newest `openai-realtime-tts` turn (docs/design.md#realtime): a
 * model-native duplex session per utterance. The target text rides the
 * session context (`session.extra_body.duplex_initial_user_text`, with
 * `auto_response: true`: the model decides when to speak), and the client
 * streams audio units of silence — 200 ms of 16 kHz PCM16 each, one every
 * 200 ms — until the response settles (`response.done` or `error`), for at
 * most NATIVE_SILENCE_S; the turn's structural timers bound the wait after
 * that (upstream waits 180 s more). The first silent chunk's send is the
 * origin of TTFT/TTFP/RTF, as upstream measures it ("first silence append
 * client send").
 */
import type { AttemptSignal, RealtimeConnection } from '../transport/index.ts';
import type { TurnReader } from './turnReader.ts';

export const NATIVE_INPUT_RATE_HZ = 16_000;
const CHUNK_MS = 200;
/** Upstream's `_SEED_TTS_SILENCE_SECONDS`: the longest silence streamed before only waiting. */
export const NATIVE_SILENCE_S = 30;
/** How long a native turn waits for its session's close before terminating it (upstream waits up to 30 s). */
export const NATIVE_CLOSE_WAIT_MS = 5_000;

/** The `session.update` session of a native turn: upstream's SessionConfig payload for `text`. */
export function nativeSessionConfig(model: string, text: string, instructions: string | null): Record<string, unknown> {
  return {
    model,
    modalities: ['audio', 'text'],
    input_audio_format: 'pcm16',
    output_audio_format: 'pcm16',
    sample_rate_hz: NATIVE_INPUT_RATE_HZ,
    audio: { input: { sample_rate_hz: NATIVE_INPUT_RATE_HZ }, output: { sample_rate_hz: 24_000 } },
    turn_detection: null,
    ...(instructions !== null ? { instructions } : {}),
    overlap_policy: 'listen_only',
    playback_commit_policy: 'ack_only',
    extra_body: {
      auto_response: true,
      return_stage_metrics: true,
      duplex_initial_user_text: text,
      force_listen_count: 0,
    },
  };
}

/** Streams silence in real time until the turn's response settles, the attempt ends, or NATIVE_SILENCE_S pass. */
export async function streamSilence(
  conn: RealtimeConnection,
  reader: TurnReader,
  ctrl: AttemptSignal,
  maxS = NATIVE_SILENCE_S,
): Promise<void> {
  const bytes = (NATIVE_INPUT_RATE_HZ * 2 * CHUNK_MS) / 1000;
  const audio = Buffer.alloc(bytes).toString('base64');
  const stop = new Promise<void>((resolve) => ctrl.onAbort(() => resolve()));
  let sentMs = 0;
  while (sentMs < maxS * 1000 && !(ctrl.aborted || reader.ended || reader.finished)) {
    sentMs += CHUNK_MS;
    conn.send({
      type: 'input_audio_buffer.append',
      audio,
      format: 'pcm16',
      sample_rate_hz: NATIVE_INPUT_RATE_HZ,
      duration_ms: CHUNK_MS,
      audio_end_ms: sentMs,
    });
    let timer: NodeJS.Timeout | undefined;
    // One timer at a time, cleared on the attempt's abort: nothing outlives the turn by more than one chunk.
    await Promise.race([new Promise<void>((r) => (timer = setTimeout(r, CHUNK_MS))), stop]);
    clearTimeout(timer);
  }
}
