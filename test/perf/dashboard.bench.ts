/**
 * Dashboard benchmarks (`npm run bench dashboard`):
 * 1. store ingest: events/s through the hub into SQLite (batched transactions, WAL, a real file);
 * 2. load of a stored 10,000-request run through the HTTP API (run detail + all request rows);
 * 3. WebSocket delivery rate to one subscribed client over a real socket, with batching;
 * 4. live lag (append → client receipt) under that load, p50/p99.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import WebSocket from 'ws';
import { buildApp } from '../../server/app.ts';
import { Hub } from '../../server/hub/hub.ts';
import { RunTracker } from '../../server/hub/runTracker.ts';
import { Store } from '../../server/store/store.ts';
import { finalizeRun } from '../../server/runs/finalize.ts';
import type { RunEvent, ServerMessage } from '../../shared/protocol.ts';
import { completedRequest, newRun } from '../server/store/sampleEvents.ts';

const dirs: string[] = [];
const tmp = () => {
  const d = mkdtempSync(join(tmpdir(), 'stallscope-bench-'));
  dirs.push(d);
  return d;
};
const verdict = (ok: boolean) => (ok ? 'OK' : 'MISSED');
const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))];
};

function recordRequests(hub: Hub, runId: string, n: number): number {
  let events = 0;
  for (let i = 0; i < n; i++) {
    for (const e of completedRequest(runId, i, i)) {
      hub.append(runId, e);
      events++;
    }
    if (i % 4 === 0) {
      hub.append(runId, { type: 'telemetry', t: i, event: { v: 1, ts: i, type: 'c2w.phase', workerId: 0, opId: i, requestIds: [`${runId}-${i}`], phase: 'cfm', details: { step: 3, steps: 10 } } });
      events++;
    }
  }
  return events;
}

async function storeIngest(): Promise<void> {
  // (a) The store alone: serialized events with their effects (ended request rows, every 4th event) into the batched writer.
  const store = new Store({ dataDir: tmp() });
  store.runs.insertRun(newRun('ingest'));
  const tracker = new RunTracker('ingest', null);
  const pending: { seq: number; json: string; effects: ReturnType<RunTracker['apply']> }[] = [];
  let seq = 0;
  for (let i = 0; i < 60_000; i++) {
    for (const e of completedRequest('ingest', i, i)) pending.push({ seq: ++seq, json: JSON.stringify(e), effects: tracker.apply(seq, e) });
  }
  let t0 = performance.now();
  for (const p of pending) store.writer.push('ingest', p.seq, p.json, p.effects);
  store.writer.flush();
  let s = (performance.now() - t0) / 1000;
  const rate = pending.length / s;
  console.log(`store ingest (batched writer): ${pending.length} events (${pending.length / 4} request rows) in ${s.toFixed(2)} s = ${Math.round(rate).toLocaleString('en')} events/s in ${store.writer.stats.batches} transactions (target >= 100,000/s) ${verdict(rate >= 100_000)}`);
  store.close();

  // (b) The whole live path: numbering, state, serialization, ring and store.
  const store2 = new Store({ dataDir: tmp() });
  const hub = new Hub(store2);
  store2.runs.insertRun(newRun('hub'));
  hub.open('hub', null);
  t0 = performance.now();
  const events = recordRequests(hub, 'hub', 60_000);
  store2.writer.flush();
  s = (performance.now() - t0) / 1000;
  console.log(`  through the hub (seq, state, JSON, ring, store): ${Math.round(events / s).toLocaleString('en')} events/s (information)`);
  store2.close();
}

async function loadStoredRun(): Promise<void> {
  const dataDir = tmp();
  const seed = await buildApp({ dataDir });
  seed.store.runs.insertRun(newRun('big', { numPrompts: 10_000 }));
  seed.hub.open('big', null);
  recordRequests(seed.hub, 'big', 10_000);
  finalizeRun(seed.hub, 'big', { status: 'finished' });
  await seed.close();

  const app = await buildApp({ dataDir });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const base = `http://127.0.0.1:${(app.server.address() as { port: number }).port}`;
  const times: number[] = [];
  let rows = 0;
  for (let k = 0; k < 6; k++) {
    const t0 = performance.now();
    const [detail, reqs] = await Promise.all([
      fetch(`${base}/api/runs/big`).then((r) => r.json()),
      fetch(`${base}/api/runs/big/requests?limit=10000`).then((r) => r.json()),
    ]);
    times.push(performance.now() - t0);
    rows = (reqs as { requests: unknown[] }).requests.length;
    if ((detail as { id: string }).id !== 'big') throw new Error('wrong run');
  }
  const warm = times.slice(1);
  const med = pct(warm, 50);
  console.log(`stored 10,000-request run via HTTP (detail + ${rows} request rows): first ${times[0].toFixed(0)} ms, median ${med.toFixed(0)} ms, max ${warm.reduce((a, b) => Math.max(a, b), 0).toFixed(0)} ms (target < 500 ms) ${verdict(times[0] < 500 && med < 500)}`);
  await app.close();
}

/** One subscribed client on a real socket; `lags` gets append→receipt time per event. */
async function subscribedClient(port: number, runId: string, sentAt: Float64Array, lags: number[]) {
  let received = 0;
  let lastAt = 0;
  let want = Infinity;
  let notify = () => {};
  const ws = new WebSocket(`ws://127.0.0.1:${port}/ws`);
  ws.on('message', (d) => {
    const m = JSON.parse(String(d)) as ServerMessage;
    if (m.type !== 'deltas') return;
    const now = performance.now();
    for (const e of m.events) lags.push(now - sentAt[e.seq]);
    received += m.events.length;
    lastAt = now;
    if (received >= want) notify();
  });
  await new Promise((r) => ws.once('open', r));
  ws.send(JSON.stringify({ type: 'subscribe', runId, afterSeq: 0 }));
  return {
    ws,
    lastAt: () => lastAt,
    until: (n: number) => new Promise<void>((resolve) => {
      want = n;
      notify = resolve;
      if (received >= n) resolve();
    }),
  };
}

const progress = (seq: number): RunEvent => ({ type: 'request.progress', t: seq, index: seq % 1088, outputTokens: seq, audioS: 1.5 });

async function wsDelivery(): Promise<void> {
  const app = await buildApp({ dataDir: tmp(), ws: { batchMs: 50 } });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const port = (app.server.address() as { port: number }).port;

  // Delivery rate: a burst appended as fast as the event loop allows, 2,000 events per tick.
  app.store.runs.insertRun(newRun('burst'));
  app.hub.open('burst', null);
  const total = 200_000;
  const sentAt = new Float64Array(total + 1);
  const client = await subscribedClient(port, 'burst', sentAt, []);
  const t0 = performance.now();
  let seq = 0;
  await new Promise<void>((resolve) => {
    const tick = () => {
      for (let k = 0; k < 2000 && seq < total; k++) {
        sentAt[seq + 1] = performance.now();
        seq = app.hub.append('burst', progress(seq));
      }
      if (seq < total) setImmediate(tick);
      else resolve();
    };
    tick();
  });
  await client.until(total);
  const s = (client.lastAt() - t0) / 1000;
  const rate = total / s;
  console.log(`ws delivery to one client: ${total.toLocaleString('en')} events in ${s.toFixed(2)} s = ${Math.round(rate).toLocaleString('en')} events/s (target >= 50,000/s) ${verdict(rate >= 50_000)}`);
  client.ws.close();

  // Live lag under that load: 50,000 events/s paced (500 every 10 ms) for 4 s.
  app.store.runs.insertRun(newRun('paced'));
  app.hub.open('paced', null);
  const n = 200_000;
  const at = new Float64Array(n + 1);
  const lags: number[] = [];
  const c2 = await subscribedClient(port, 'paced', at, lags);
  let pseq = 0;
  const start = performance.now();
  await new Promise<void>((resolve) => {
    const tick = () => {
      // Catch up to the schedule, so a late timer does not lower the offered load.
      const due = Math.min(n, Math.floor(((performance.now() - start) / 1000) * 50_000) + 500);
      while (pseq < due) {
        at[pseq + 1] = performance.now();
        pseq = app.hub.append('paced', progress(pseq));
      }
      if (pseq < n) setTimeout(tick, 10);
      else resolve();
    };
    tick();
  });
  await c2.until(n);
  const offered = n / ((performance.now() - start) / 1000);
  const p99 = pct(lags, 99);
  console.log(`live lag at ${Math.round(offered).toLocaleString('en')} events/s offered: p50 ${pct(lags, 50).toFixed(0)} ms, p99 ${p99.toFixed(0)} ms, max ${lags.reduce((a, b) => Math.max(a, b), 0).toFixed(0)} ms (target p99 < 250 ms) ${verdict(p99 < 250)}`);
  c2.ws.close();
  await app.close();
}

try {
  await storeIngest();
  await loadStoredRun();
  await wsDelivery();
} finally {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
}
