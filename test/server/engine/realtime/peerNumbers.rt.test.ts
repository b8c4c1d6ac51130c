/**
 * Numbers a realtime server chooses are held to the run's bounds
 * (docs/design.md#peer-bounds): `response.done.usage.output_tokens` to chat's
 * MAX_COMPLETION_TOKENS (REQ_TOKEN_BOUND), an audio delta's `sample_rate_hz`
 * to a sane rate (REQ_BAD_AUDIO). Each fails the one turn with the reason.
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

/** A well-behaved handshake; at the turn's response.create, `turn` sends the response's events. */
async function peer(turn: (send: (e: object) => void) => void): Promise<string> {
  server = createServer();
  const wss = new WebSocketServer({ noServer: true });
  server.on('upgrade', (req, socket, head) =>
    wss.handleUpgrade(req, socket, head, (ws: WebSocket) => {
      const send = (e: object) => ws.send(JSON.stringify(e));
      ws.on('message', (d) => {
        const e = JSON.parse(String(d)) as { type: string };
        if (e.type === 'session.update') send({ type: 'session.created', session: { id: 's1' } });
        if (e.type === 'response.create') {
          send({ type: 'response.created', response: { id: 'r1', status: 'in_progress' } });
          turn(send);
        }
      });
    }),
  );
  await new Promise<void>((r) => server!.listen(0, '127.0.0.1', r));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

const audio = (extra: object = {}) => ({
  type: 'response.output_audio.delta',
  response_id: 'r1',
  delta: Buffer.alloc(4800).toString('base64'),
  ...extra,
});
const done = (outputTokens: number) => ({
  type: 'response.done',
  response: { id: 'r1', status: 'completed', usage: { output_tokens: outputTokens } },
});

describe('numbers a realtime server chooses', () => {
  it('usage.output_tokens past MAX_COMPLETION_TOKENS fails the turn with REQ_TOKEN_BOUND', async () => {
    const url = await peer((send) => {
      send(audio());
      send(done(9.0e15));
    });
    const o = await realtimeRun(url).turn(0, 'hello', 1, 1);
    expect(o.result).toEqual({ type: 'failed' });
    expect(o.record.success).toBe(false);
    expect(o.record.errorCode).toBe('REQ_TOKEN_BOUND');
    expect(o.record.error).toBe(
      'token count beyond any sane bound: response.done usage.output_tokens = 9000000000000000 exceeds 1000000',
    );
    expect(o.record.outputTokens).not.toBe(9.0e15);
  });

  it('usage.output_tokens at the bound is kept', async () => {
    const url = await peer((send) => {
      send(audio());
      send(done(1_000_000));
    });
    const o = await realtimeRun(url).turn(0, 'hello', 1, 1);
    expect(o.record.success).toBe(true);
    expect(o.record.outputTokens).toBe(1_000_000);
  });

  it('sample_rate_hz 5e-324 fails the turn with REQ_BAD_AUDIO instead of an Infinity duration', async () => {
    const url = await peer((send) => {
      send(audio({ sample_rate_hz: 5e-324 }));
      send(done(3));
    });
    const o = await realtimeRun(url).turn(0, 'hello', 1, 1);
    expect(o.result).toEqual({ type: 'failed' });
    expect(o.record.errorCode).toBe('REQ_BAD_AUDIO');
    expect(o.record.error).toContain('sample_rate_hz 5e-324 is not a sample rate (1000 to 768000 Hz)');
    expect(Number.isFinite(o.record.audioDuration)).toBe(true);
  });

  it('a sane sample_rate_hz is the duration’s rate', async () => {
    const url = await peer((send) => {
      send(audio({ sample_rate_hz: 48_000 }));
      send(done(3));
    });
    const o = await realtimeRun(url).turn(0, 'hello', 1, 1);
    expect(o.record.success).toBe(true);
    expect(o.record.audioDuration).toBeCloseTo(2400 / 48_000, 9);
  });

  it('a failed turn stays failed when response.done follows on the wire', async () => {
    const url = await peer((send) => {
      send({ type: 'error', error: { message: 'boom' } });
      send(done(3));
    });
    const o = await realtimeRun(url).turn(0, 'hello', 1, 1);
    expect(o.result).toEqual({ type: 'failed' });
    expect(o.record.error).toBe('boom');
  });
});
