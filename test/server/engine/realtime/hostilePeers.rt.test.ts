/**
 * Hostile WebSocket peers: each fails the one turn with a stable code and a
 * clear reason, and the run's sockets are all closed afterwards.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { WebSocketServer, type WebSocket } from 'ws';
import { realtimeRun } from '#test/helpers/realtimeTurns.ts';

let server: Server | null = null;
const raw = new Set<Socket>();

afterEach(async () => {
  for (const s of raw) s.destroy();
  raw.clear();
  server?.closeAllConnections();
  await new Promise((r) => server?.close(r));
  server = null;
});

/** A server whose upgrade is handled by `onSocket` (a raw handler, or a ws session). */
async function peer(onSession: ((ws: WebSocket) => void) | null, onUpgrade?: (socket: Socket) => void) {
  server = createServer();
  const wss = new WebSocketServer({ noServer: true });
  server.on('upgrade', (req, socket, head) => {
    raw.add(socket as Socket);
    if (onUpgrade) return onUpgrade(socket as Socket);
    wss.handleUpgrade(req, socket, head, (ws) => onSession!(ws));
  });
  await new Promise<void>((r) => server!.listen(0, '127.0.0.1', r));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** A well-behaved handshake, then `turn` once the turn's response.create arrives. */
function session(turn: (ws: WebSocket) => void) {
  return (ws: WebSocket) => {
    ws.on('message', (d) => {
      const e = JSON.parse(String(d)) as { type: string };
      if (e.type === 'session.update') ws.send(JSON.stringify({ type: 'session.created', session: { id: 's1' } }));
      if (e.type === 'response.create') {
        ws.send(JSON.stringify({ type: 'response.created', response: { id: 'r1', status: 'in_progress' } }));
        turn(ws);
      }
    });
  };
}

describe('hostile realtime peers', () => {
  it('never answers the upgrade: the first-byte timeout fails the turn', async () => {
    const url = await peer(null, () => undefined);
    const run = realtimeRun(url, { totalS: 5, firstByteS: 0.4 });
    const o = await run.turn(0, 'hello', 1, 1);
    expect(o.result).toMatchObject({ type: 'timeout', kind: 'first_byte' });
    expect(o.record.error).toBe('request timed out: first_byte timeout after 0.4 s');
    await expect.poll(() => run.sockets().size).toBe(0);
  });

  it('closes mid-turn: REQ_WS_CLOSED with the close code', async () => {
    const url = await peer(session((ws) => ws.close(1011, 'boom')));
    const o = await realtimeRun(url).turn(0, 'hello', 1, 1);
    expect(o.result).toEqual({ type: 'failed' });
    expect(o.record.errorCode).toBe('REQ_WS_CLOSED');
    expect(o.record.error).toContain('close code 1011 (boom)');
  });

  it('sends a 50 MB frame: the client caps the frame size (REQ_WS_FRAME_TOO_LARGE)', async () => {
    const url = await peer(session((ws) => ws.send('x'.repeat(50 * 1024 * 1024))));
    const run = realtimeRun(url, { maxFrameBytes: 1024 * 1024 });
    const o = await run.turn(0, 'hello', 1, 1);
    expect(o.result).toEqual({ type: 'failed' });
    expect(o.record.errorCode).toBe('REQ_WS_FRAME_TOO_LARGE');
    await expect.poll(() => run.sockets().size).toBe(0);
  });

  it('sends binary where text is expected: REQ_WS_BINARY', async () => {
    const url = await peer(session((ws) => ws.send(Buffer.from([1, 2, 3]), { binary: true })));
    const o = await realtimeRun(url).turn(0, 'hello', 1, 1);
    expect(o.result).toEqual({ type: 'failed' });
    expect(o.record.errorCode).toBe('REQ_WS_BINARY');
    expect(o.record.error).toBe('binary frame where a JSON text event was expected: 3 bytes');
  });

  it('never sends response.done: the idle timeout fails the turn', async () => {
    const url = await peer(
      session((ws) =>
        ws.send(JSON.stringify({ type: 'response.output_audio.delta', response_id: 'r1', delta: 'AAAA' })),
      ),
    );
    const o = await realtimeRun(url, { totalS: 5, idleS: 0.3 }).turn(0, 'hello', 1, 1);
    expect(o.result).toMatchObject({ type: 'timeout', kind: 'idle' });
    // What arrived before the stall is kept, as for a stalled HTTP stream.
    expect(o.record.audioFrames).toBe(1);
  });
});
