/**
 * POST /v1/audio/speech (docs/design.md#repro-speech): the input text runs
 * through the same thinker → talker → Code2Wav pipeline, request pool and
 * fault plan as a chat request, so a Code2Wav hang stops a speech stream as
 * it stops a chat stream (and the watchdog reports it). Streamed: chunked
 * raw PCM, one write per decoded window; not streamed: the whole PCM (or
 * WAV) once every window is decoded.
 */
import type { FastifyInstance, FastifyReply } from 'fastify';
import { parseSpeechRequest, type SpeechRequest } from '../requests/speechRequest.ts';
import { runOmniRequest } from '../pipeline/omniRequest.ts';
import { pipelineKey, requestIdOf } from '../pipeline/requestKeys.ts';
import { wavBytes } from '../code2wav/kernels/wav.ts';
import { SAMPLE_RATE } from '../code2wav/kernels/model.ts';
import type { ChatRouteDeps } from './chat.ts';

/** The 44-byte header of the decoded windows' WAV files (mono PCM16). */
const WAV_HEADER = 44;

export function registerSpeechRoute(app: FastifyInstance, deps: ChatRouteDeps): void {
  app.post('/v1/audio/speech', async (request, reply) => {
    const req = parseSpeechRequest(request.body, deps.model);
    const requestId = requestIdOf(request.headers['x-request-id'], 'speech-');
    const key = pipelineKey(requestId, 's');
    const controller = new AbortController();
    deps.active.add(controller);
    reply.raw.on('close', () => {
      if (!reply.raw.writableFinished) controller.abort();
    });
    try {
      if (req.stream) return await streamPcm(reply, req, requestId, key, deps, controller);
      return await wholeAudio(reply, req, requestId, key, deps, controller);
    } finally {
      deps.active.delete(controller);
      deps.omni.pool.release(key, controller.signal.aborted);
    }
  });
}

const pcmOf = (wav: Uint8Array): Uint8Array => wav.subarray(WAV_HEADER);

async function streamPcm(
  reply: FastifyReply,
  req: SpeechRequest,
  requestId: string,
  key: string,
  deps: ChatRouteDeps,
  controller: AbortController,
): Promise<void> {
  reply.hijack();
  const raw = reply.raw;
  raw.writeHead(200, { 'content-type': 'audio/pcm', 'x-request-id': requestId, 'x-sample-rate': String(SAMPLE_RATE) });
  const live = () => !controller.signal.aborted && !raw.destroyed;
  try {
    await runOmniRequest(
      key,
      requestId,
      req.omni,
      deps.omni,
      { text: () => undefined, audio: (wav) => void (live() && raw.write(pcmOf(wav))) },
      controller.signal,
    );
  } catch {
    // Raw PCM has no in-band error: the stream is cut short, which the client sees as a broken body.
    if (live()) raw.destroy();
    return;
  }
  if (live()) raw.end();
}

async function wholeAudio(
  reply: FastifyReply,
  req: SpeechRequest,
  requestId: string,
  key: string,
  deps: ChatRouteDeps,
  controller: AbortController,
): Promise<FastifyReply> {
  const parts: Uint8Array[] = [];
  await runOmniRequest(
    key,
    requestId,
    req.omni,
    deps.omni,
    { text: () => undefined, audio: (wav) => void parts.push(pcmOf(wav)) },
    controller.signal,
  );
  const pcm = Buffer.concat(parts);
  reply.header('x-request-id', requestId);
  if (req.format === 'pcm') return reply.type('audio/pcm').send(pcm);
  const samples = new Int16Array(pcm.byteLength / 2);
  for (let i = 0; i < samples.length; i++) samples[i] = pcm.readInt16LE(2 * i);
  return reply.type('audio/wav').send(Buffer.from(wavBytes(samples, SAMPLE_RATE)));
}
