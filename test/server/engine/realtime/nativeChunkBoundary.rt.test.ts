/**
 * A native tts turn acknowledges its playback and closes its session only
 * when its silence loop ends at a chunk boundary, as upstream's client does
 * (docs/design.md#realtime): `stream_silence` checks for the settled answer
 * between 200 ms chunks, and the ack and `session.close` follow it. A real
 * WebSocket peer on 127.0.0.1 answers the first chunk at once and records
 * when each client event arrives.
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

async function peer(seen: { type: string; at: number }[]): Promise<string> {
  server = createServer();
  const wss = new WebSocketServer({ noServer: true });
  server.on('upgrade', (req, socket, head) =>
    wss.handleUpgrade(req, socket, head, (ws: WebSocket) => {
      const send = (e: object) => ws.send(JSON.stringify(e));
      ws.on('message', (d) => {
        const e = JSON.parse(String(d)) as { type: string };
        seen.push({ type: e.type, at: performance.now() });
        if (e.type === 'session.update') send({ type: 'session.created', session: { id: 's1' } });
        if (e.type === 'input_audio_buffer.append' && seen.filter((s) => s.type === e.type).length === 1) {
          send({ type: 'response.created', response: { id: 'r1', status: 'in_progress' } });
          send({ type: 'response.output_audio_transcript.delta', response_id: 'r1', delta: 'hi' });
          send({
            type: 'response.output_audio.delta',
            response_id: 'r1',
            delta: Buffer.alloc(4800).toString('base64'),
          });
          send({ type: 'response.done', response: { id: 'r1', status: 'completed' } });
        }
        if (e.type === 'session.close') {
          send({ type: 'session.closed' });
          ws.close();
        }
      });
    }),
  );
  await new Promise<void>((r) => server!.listen(0, '127.0.0.1', r));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

describe('native realtime tts: the session ends at the silence chunk boundary', () => {
  it('acks and closes one chunk after the first append when the answer settled within it, sending no second chunk', async () => {
    const seen: { type: string; at: number }[] = [];
    const o = await realtimeRun(await peer(seen)).turn(0, 'hi', 1, 1, { flow: 'native' });
    expect(o.result, o.record.error).toEqual({ type: 'ok' });
    const at = (type: string) => seen.find((s) => s.type === type)!.at;
    expect(seen.filter((s) => s.type === 'input_audio_buffer.append')).toHaveLength(1);
    // The 200 ms chunk's pacing, less the peer's receive delay of the append (loopback, well under 5 ms).
    expect(at('playback.ack') - at('input_audio_buffer.append')).toBeGreaterThanOrEqual(195);
    expect(at('session.close')).toBeGreaterThanOrEqual(at('playback.ack'));
    // Upstream's E2EL holds the whole chunk; the turn-level figure (response.done) does not.
    expect(o.record.latency - (o.timing!.originTs - o.record.startTime)).toBeGreaterThanOrEqual(0.195);
    expect(o.timing!.doneTs! - o.timing!.originTs).toBeLessThan(0.195);
  }, 20_000);
});
