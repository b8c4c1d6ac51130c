/**
 * The duplex input of a turn (docs/design.md#realtime), as vLLM-Omni's
 * realtime Seed-TTS client sends it: the prompt as an `input_text` item,
 * then the input speech as `input_audio_buffer.append` events of 200 ms
 * paced against absolute deadlines at real time (a microphone cannot send a
 * sample before it is captured). An explicit turn stops at the end of the
 * speech and sends `input_audio_buffer.commit` then `response.create`; a
 * server-VAD turn streams the silent tail too and sends neither, waiting for
 * the server's `speech_stopped`. The end of the speech becomes the origin
 * of TTFT, TTFP, RTF and E2EL.
 */
import type { AttemptSignal, RealtimeConnection } from '../transport/index.ts';
import type { TurnJob } from './session.ts';
import type { TurnReader } from './turnReader.ts';

export const CHUNK_MS = 200;

export async function sendDuplexInput(
  conn: RealtimeConnection,
  job: TurnJob,
  reader: TurnReader,
  ctrl: AttemptSignal,
  now: () => number,
): Promise<void> {
  const input = job.input!;
  conn.send({
    type: 'conversation.item.create',
    item: { type: 'message', role: 'user', content: [{ type: 'input_text', text: job.text }] },
  });
  const bytesPerS = input.sampleRateHz * 2;
  const chunkBytes = Math.round((input.sampleRateHz * CHUNK_MS) / 1000) * 2;
  const upload = input.trigger === 'vad' ? input.pcm : input.pcm.subarray(0, input.contentBytes);
  const started = now();
  let deadline = started;
  let sentS = 0;
  for (let offset = 0; offset < upload.length;) {
    let end = Math.min(offset + chunkBytes, upload.length);
    // The end of speech is a chunk boundary, even when the speech is not a multiple of 200 ms.
    if (offset < input.contentBytes) end = Math.min(end, input.contentBytes);
    const chunk = upload.subarray(offset, end);
    deadline += chunk.length / bytesPerS;
    await sleepUntil(deadline, now, ctrl);
    if (ctrl.aborted || reader.finished) return;
    if (offset < input.contentBytes && end >= input.contentBytes) reader.moveOrigin(now());
    sentS += chunk.length / bytesPerS;
    conn.send({
      type: 'input_audio_buffer.append',
      audio: chunk.toString('base64'),
      format: 'pcm16',
      sample_rate_hz: input.sampleRateHz,
      duration_ms: Math.round((chunk.length / bytesPerS) * 1000),
      audio_end_ms: Math.round(sentS * 1000),
    });
    offset = end;
  }
  if (input.trigger === 'explicit') {
    conn.send({ type: 'input_audio_buffer.commit', final: true, response_create: false });
    conn.send({ type: 'response.create', response: { metadata: { request_id: job.requestId } } });
  }
}

function sleepUntil(atS: number, now: () => number, ctrl: AttemptSignal): Promise<void> {
  const ms = (atS - now()) * 1000;
  if (ms <= 0 || ctrl.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    const t = setTimeout(resolve, ms);
    ctrl.onAbort(() => {
      clearTimeout(t);
      resolve();
    });
  });
}
