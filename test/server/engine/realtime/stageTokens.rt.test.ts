/**
 * A realtime response's output tokens as vLLM-Omni's newest client counts them
 * (docs/design.md#realtime): the native flow takes stage 0's `num_tokens_out`
 * from the response's `stage_metrics` (0 without one) and ignores
 * `usage.output_tokens`; the older turn flow keeps `usage.output_tokens`.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { WebSocketServer, type WebSocket } from 'ws';
import { realtimeRun } from '#test/helpers/realtimeTurns.ts';

let server: Server | null = null;
afterEach(async () => {
  server?.closeAllConnections();
  await new Promise((r) => server?.close(r));
  server = null;
});

/** Answers once, at the first silent chunk (native) or at response.create (turns), with `done` closing the response. */
async function peer(done: object): Promise<string> {
  server = createServer();
  const wss = new WebSocketServer({ noServer: true });
  server.on('upgrade', (req, socket, head) =>
    wss.handleUpgrade(req, socket, head, (ws: WebSocket) => {
      const send = (e: object) => ws.send(JSON.stringify(e));
      let answered = false;
      ws.on('message', (d) => {
        const e = JSON.parse(String(d)) as { type: string };
        if (e.type === 'session.update') send({ type: 'session.created', session: { id: 's1' } });
        if ((e.type === 'input_audio_buffer.append' || e.type === 'response.create') && !answered) {
          answered = true;
          send({ type: 'response.created', response: { id: 'r1', status: 'in_progress' } });
          send({ type: 'response.audio_transcript.delta', response_id: 'r1', delta: 'hello' });
          send({ type: 'response.audio.delta', response_id: 'r1', delta: Buffer.alloc(4800).toString('base64') });
          send({ type: 'response.done', response: { id: 'r1', status: 'completed', ...done } });
        }
        if (e.type === 'session.close') ws.close();
      });
    }),
  );
  await new Promise<void>((r) => server!.listen(0, '127.0.0.1', r));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

const both = {
  usage: { output_tokens: 99 },
  metadata: { stage_metrics: { '0': { num_tokens_out: 7 }, '1': { num_tokens_out: 500 } } },
};

describe('realtime output tokens', () => {
  it('native: stage 0 num_tokens_out, not usage.output_tokens', async () => {
    const o = await realtimeRun(await peer(both)).turn(0, 'hello', 1, 1, { flow: 'native' });
    expect(o.result, o.record.error).toEqual({ type: 'ok' });
    expect(o.record.outputTokens).toBe(7);
  }, 20_000);

  it('native: upstream places stage_metrics under response.metadata.vllm_omni too', async () => {
    const done = {
      usage: { output_tokens: 99 },
      metadata: { vllm_omni: { stage_metrics: { '0': { num_tokens_out: 11 } } } },
    };
    const o = await realtimeRun(await peer(done)).turn(0, 'hello', 1, 1, { flow: 'native' });
    expect(o.result, o.record.error).toEqual({ type: 'ok' });
    expect(o.record.outputTokens).toBe(11);
  }, 20_000);

  it('native: no stage metrics counts 0, as upstream sums nothing', async () => {
    const o = await realtimeRun(await peer({ usage: { output_tokens: 99 } })).turn(0, 'hello', 1, 1, {
      flow: 'native',
    });
    expect(o.result, o.record.error).toEqual({ type: 'ok' });
    expect(o.record.outputTokens).toBe(0);
  }, 20_000);

  it('turns (the older flow): usage.output_tokens', async () => {
    const o = await realtimeRun(await peer(both)).turn(0, 'hello', 1, 1, { flow: 'turns' });
    expect(o.result, o.record.error).toEqual({ type: 'ok' });
    expect(o.record.outputTokens).toBe(99);
  }, 20_000);
});
