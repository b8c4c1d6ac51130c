/**
 * The native tts flow's turn-level E2EL under stallscope's `*_turn_e2el_ms`
 * keys (docs/design.md#realtime), beside upstream's session-level
 * `*_e2el_ms`: a real WebSocket peer on 127.0.0.1 answers the first silent
 * chunk with its audio at once and `response.done` DONE_DELAY_MS later, and
 * holds its handshake HANDSHAKE_DELAY_MS, so the two E2ELs differ by a known
 * span (the session's, not the turn's) and the turn's one ends at
 * `response.done`, not at the audio.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { WebSocketServer, type WebSocket } from 'ws';
import { runBenchmark } from '#server/engine/engine.ts';
import { testBenchConfig } from '#test/helpers/benchConfig.ts';
import { mean } from '#shared/metrics/stats.ts';

const DONE_DELAY_MS = 300;
const HANDSHAKE_DELAY_MS = 400;

let server: Server | null = null;
const timers = new Set<NodeJS.Timeout>();
afterEach(async () => {
  for (const t of timers) clearTimeout(t);
  timers.clear();
  server?.closeAllConnections();
  await new Promise((r) => server?.close(r));
  server = null;
});

function later(ms: number, f: () => void): void {
  const t = setTimeout(() => {
    timers.delete(t);
    f();
  }, ms);
  timers.add(t);
}

async function peer(): Promise<string> {
  server = createServer();
  const wss = new WebSocketServer({ noServer: true });
  let responses = 0;
  server.on('upgrade', (req, socket, head) =>
    wss.handleUpgrade(req, socket, head, (ws: WebSocket) => {
      const send = (e: object) => ws.readyState === ws.OPEN && ws.send(JSON.stringify(e));
      let answered = false;
      ws.on('message', (d) => {
        const e = JSON.parse(String(d)) as { type: string };
        if (e.type === 'session.update')
          later(HANDSHAKE_DELAY_MS, () => send({ type: 'session.created', session: { id: 's1' } }));
        if ((e.type === 'input_audio_buffer.append' || e.type === 'response.create') && !answered) {
          answered = true;
          const id = `r${responses++}`;
          send({ type: 'response.created', response: { id, status: 'in_progress' } });
          send({ type: 'response.audio_transcript.delta', response_id: id, delta: 'hello' });
          send({ type: 'response.audio.delta', response_id: id, delta: Buffer.alloc(4800).toString('base64') });
          later(DONE_DELAY_MS, () => send({ type: 'response.done', response: { id, status: 'completed' } }));
        }
      });
    }),
  );
  await new Promise<void>((r) => server!.listen(0, '127.0.0.1', r));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

const config = (url: string, flow?: 'turns') =>
  testBenchConfig(url, {
    backend: 'openai-realtime-tts',
    endpoint: '/v1/realtime',
    numPrompts: 2,
    maxConcurrency: 1,
    percentileMetrics: ['ttft', 'e2el', 'audio_ttfp', 'audio_rtf'],
    metricPercentiles: [50, 99],
    timeouts: { totalS: 20 },
    ...(flow ? { extraBody: { realtime_tts_flow: flow } } : {}),
  });

describe('native realtime tts: turn-level E2EL', () => {
  it('keeps response.done per turn and writes *_turn_e2el_ms after upstream keys, below the session E2EL', async () => {
    const out = await runBenchmark(config(await peer()), { warmClient: false });
    expect(out.result.completed).toBe(2);
    const rs = [...out.records];
    for (const r of rs) {
      // Ended at response.done: the delay after the audio is in it, the session's handshake is not.
      expect(r.realtimeDoneS!).toBeGreaterThanOrEqual(r.realtimeGenerationS! + DONE_DELAY_MS / 1000 - 0.005);
      expect(r.latency).toBeGreaterThanOrEqual(r.realtimeDoneS! + HANDSHAKE_DELAY_MS / 1000 - 0.005);
    }
    const turnMs = rs.map((r) => r.realtimeDoneS! * 1000);
    const res = out.result;
    expect(res.num_turn_e2el_samples).toBe(2);
    expect(res.mean_turn_e2el_ms).toBe(mean(turnMs));
    expect(res.median_turn_e2el_ms).toBe(mean(turnMs));
    expect(res.p99_turn_e2el_ms).toBe(Math.min(...turnMs) + (Math.max(...turnMs) - Math.min(...turnMs)) * 0.99);
    expect(res.p50_turn_e2el_ms).toBeDefined();
    // Upstream's session-level E2EL keeps its key and its span (handshake included).
    expect(res.mean_e2el_ms as number).toBeGreaterThanOrEqual(
      (res.mean_turn_e2el_ms as number) + HANDSHAKE_DELAY_MS - 5,
    );
    // Placed after upstream's keys: every upstream metric key comes before the first stallscope turn key.
    const keys = Object.keys(res);
    const first = keys.indexOf('num_turn_e2el_samples');
    for (const k of ['rtfx', 'mean_e2el_ms', 'p99_e2el_ms', 'p99_audio_rtf'])
      expect(keys.indexOf(k)).toBeLessThan(first);
  }, 30_000);

  it('the turns flow writes none: its own E2EL is already the turn', async () => {
    const out = await runBenchmark(config(await peer(), 'turns'), { warmClient: false });
    expect(out.result.completed).toBe(2);
    expect(Object.keys(out.result).filter((k) => k.includes('turn_e2el'))).toEqual([]);
  }, 30_000);
});
