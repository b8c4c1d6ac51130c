// A WebSocket client in its own thread (as a browser would be its own process) for dashboard.bench.ts:
// subscribes to a run, and for every event computes the lag from its append time, which the producer
// wrote into the event's `t` as ms since `base` (an absolute time shared by both threads).
import { parentPort, workerData } from 'node:worker_threads';
import WebSocket from 'ws';

const { url, runId, total, base } = workerData;
const now = () => performance.timeOrigin + performance.now();
const lags = new Float64Array(total);
let received = 0;
let firstAt = 0;
const ws = new WebSocket(url);
ws.on('open', () => {
  ws.send(JSON.stringify({ type: 'subscribe', runId, afterSeq: 0 }));
  parentPort.postMessage({ type: 'ready' });
});
ws.on('message', (data) => {
  const m = JSON.parse(String(data));
  if (m.type !== 'deltas') return;
  const t = now();
  if (!firstAt) firstAt = t;
  for (const e of m.events) if (received < total) lags[received++] = t - (base + e.event.t);
  if (received >= total) {
    parentPort.postMessage({ type: 'done', lastAt: t, lags }, [lags.buffer]);
    ws.close();
  }
});
