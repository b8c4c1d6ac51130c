/**
 * POST /v1/chat/completions: streaming (SSE, vLLM-Omni format) and
 * non-streaming (one JSON body with `message.audio.data`).
 */
import { randomUUID } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { parseChatRequest, type ChatRequest } from '../requests/chatRequest.ts';
import { ChunkFactory, SSE_DONE, sseData, stage0Entry, streamError, type StageCounters } from './sse.ts';
import { Stage0Clock } from '../realtime/stageMetrics.ts';
import { runOmniRequest, type OmniDeps } from '../pipeline/omniRequest.ts';
import { pipelineKey, requestIdOf } from '../pipeline/requestKeys.ts';
import { concatWavs } from './wavConcat.ts';
import { SAMPLE_RATE } from '../code2wav/kernels/model.ts';

export interface ChatRouteDeps {
  model: string;
  omni: OmniDeps;
  /** Tracks requests in flight (fault trigger `min-inflight`, /health) and lets close() abort them. */
  active: Set<AbortController>;
}

export function registerChatRoute(app: FastifyInstance, deps: ChatRouteDeps): void {
  app.post('/v1/chat/completions', async (request, reply) => {
    const req = parseChatRequest(request.body, deps.model);
    const requestId = requestIdOf(request.headers['x-request-id'], 'chatcmpl-');
    const key = pipelineKey(requestId, '');
    const controller = new AbortController();
    deps.active.add(controller);
    try {
      if (req.stream) return await streamResponse(request, reply, req, requestId, key, deps, controller);
      return await jsonResponse(reply, req, requestId, key, deps, controller);
    } finally {
      deps.active.delete(controller);
      deps.omni.pool.release(key, controller.signal.aborted);
    }
  });
}

async function streamResponse(
  request: FastifyRequest,
  reply: FastifyReply,
  req: ChatRequest,
  requestId: string,
  key: string,
  deps: ChatRouteDeps,
  controller: AbortController,
): Promise<void> {
  reply.hijack();
  const raw = reply.raw;
  raw.writeHead(200, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache',
    connection: 'keep-alive',
    'x-request-id': requestId,
  });
  // The client went away before we finished: stop all work for it.
  raw.on('close', () => {
    if (!raw.writableFinished) controller.abort();
  });
  const counters: StageCounters = { tokens: 0, textFinish: null, audioFrames: 0, sampleRate: SAMPLE_RATE };
  // Stage 0's own token times, from the request's arrival at the route (only kept when they are reported).
  const stage0 = req.stageMetrics ? new Stage0Clock(performance.now()) : null;
  const chunks = new ChunkFactory(
    `chatcmpl-${randomUUID().replace(/-/g, '')}`,
    Math.floor(Date.now() / 1000),
    deps.model,
    req,
    counters,
  );
  const write = (obj: unknown) => {
    if (!controller.signal.aborted && !raw.destroyed) raw.write(sseData(obj));
  };
  write(chunks.role());
  try {
    const outcome = await runOmniRequest(
      key,
      requestId,
      req,
      deps.omni,
      {
        text(delta, tokens, isLast, finish) {
          stage0?.token(performance.now());
          counters.tokens = tokens;
          if (isLast) {
            counters.textFinish = finish;
            if (stage0) counters.stage0Timing = stage0.snapshot(tokens);
          }
          write(chunks.text(delta, isLast && !req.wantAudio ? finish : null));
        },
        audio(wav, samples, isLast) {
          counters.audioFrames += samples;
          write(
            chunks.audio(
              Buffer.from(wav.buffer, wav.byteOffset, wav.byteLength).toString('base64'),
              isLast ? 'stop' : null,
            ),
          );
        },
      },
      controller.signal,
    );
    if (req.wantAudio && outcome.audioWindows === 0) write(chunks.fallbackStop());
    if (req.includeUsage) write(chunks.final());
  } catch (err) {
    write(streamError(err instanceof Error ? err.message : String(err)));
  }
  if (!controller.signal.aborted && !raw.destroyed) raw.end(SSE_DONE);
}

async function jsonResponse(
  reply: FastifyReply,
  req: ChatRequest,
  requestId: string,
  key: string,
  deps: ChatRouteDeps,
  controller: AbortController,
) {
  reply.raw.on('close', () => {
    if (!reply.raw.writableFinished) controller.abort();
  });
  let text = '';
  let tokens = 0;
  const wavs: Uint8Array[] = [];
  const stage0 = req.stageMetrics ? new Stage0Clock(performance.now()) : null;
  const outcome = await runOmniRequest(
    key,
    requestId,
    req,
    deps.omni,
    {
      text(delta, n) {
        stage0?.token(performance.now());
        text += delta;
        tokens = n;
      },
      audio(wav) {
        wavs.push(wav);
      },
    },
    controller.signal,
  );
  const audio =
    req.wantAudio && wavs.length > 0
      ? {
          id: `audio-${randomUUID()}`,
          data: Buffer.from(concatWavs(wavs, SAMPLE_RATE)).toString('base64'),
          expires_at: Math.floor(Date.now() / 1000) + 3600,
          transcript: text,
        }
      : null;
  return {
    id: `chatcmpl-${randomUUID().replace(/-/g, '')}`,
    object: 'chat.completion',
    created: Math.floor(Date.now() / 1000),
    model: deps.model,
    choices: [
      {
        index: 0,
        message: { role: 'assistant', content: text, ...(audio ? { audio } : {}) },
        logprobs: null,
        finish_reason: outcome.textFinish,
      },
    ],
    usage: { prompt_tokens: req.promptTokens, completion_tokens: tokens, total_tokens: req.promptTokens + tokens },
    ...(req.stageMetrics
      ? {
          metrics: {
            num_tokens_out: tokens,
            stage_metrics: {
              '0': stage0Entry(tokens, outcome.textFinish, tokens > 0 ? stage0?.snapshot(tokens) : null),
            },
          },
        }
      : {}),
  };
}
