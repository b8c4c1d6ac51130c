/**
 * Dashboard robustness figures (`npm run bench dashboard`):
 * 1. bytes held in memory per finished request of a live run: the hub and
 *    store alone, then a whole dashboard run (engine included) against a
 *    loopback SSE server in its own process;
 * 2. GET /api/presets latency while a 28 MB vLLM result (400,000 requests) is
 *    imported (uploaded from its own thread, as a real client is another
 *    process), and the WebSocket deltas of a live run meanwhile;
 * 3. SIGTERM to exit of `stallscope serve` during a 1,000,000-request run.
 */
import { sqliteOf } from '#test/helpers/sqliteStore.ts';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { Worker } from 'node:worker_threads';
import { buildApp } from '#server/dashboard/app.ts';
import { Hub } from '#server/dashboard/hub/hub.ts';
import { SqliteStore } from '#server/dashboard/store/sqlite/sqliteStore.ts';
import { CODE2WAV_HANG } from '#shared/config/presets.ts';
import type { RunEvent } from '#shared/protocol/protocol.ts';
import { completedRequest, newRun } from '../helpers/sampleEvents.ts';
import { startServerProcess } from '../helpers/serverProcess.ts';
import { bigVllmResult } from '../helpers/bigInputs.ts';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;
const heap = () => {
  gc();
  gc();
  // The engine keeps its records in typed arrays, whose bytes are outside V8's heap: counted too.
  const m = process.memoryUsage();
  return m.heapUsed + m.arrayBuffers;
};
const dirs: string[] = [];
const tmp = () => {
  const d = mkdtempSync(join(tmpdir(), 'stallscope-bench-'));
  dirs.push(d);
  return d;
};
const verdict = (ok: boolean) => (ok ? 'OK' : 'MISSED');
const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] ?? NaN;
};
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const spec = (baseUrl: string, numPrompts: number) => ({
  ...CODE2WAV_HANG.spec,
  failFast: false,
  target: { kind: 'url', baseUrl },
  numPrompts,
  maxConcurrency: 10,
  dataset: { name: 'random', inputLen: 32, outputLen: 16 },
  timeouts: { totalS: 60 },
});

async function hubMemory(): Promise<void> {
  const store = new SqliteStore({ dataDir: tmp() });
  const hub = new Hub(store);
  const n = 200_000;
  store.runs.insertRun(newRun('mem', { numPrompts: n }));
  hub.open('mem', null);
  const before = heap();
  for (let i = 0; i < n; i++) {
    for (const e of completedRequest('mem', i, i)) hub.append('mem', e);
    if (i % 4 === 0) {
      hub.append('mem', {
        type: 'telemetry',
        t: i,
        event: {
          v: 1,
          ts: i,
          type: 'c2w.phase',
          workerId: 0,
          opId: i,
          requestIds: [`mem-${i}`],
          phase: 'cfm',
          details: {},
        },
      });
    }
  }
  store.writer.flush();
  const per = (heap() - before) / n;
  console.log(
    `memory per finished request, hub + store, live run of ${n.toLocaleString('en')} requests (ring of the last 50,000 events included): ${per.toFixed(0)} B (target < 1,024 B) ${verdict(per < 1024)}`,
  );
  hub.close('mem');
  store.closeNow();
}

async function runMemory(): Promise<void> {
  const sse = await startServerProcess({ rest: { kind: 'ok', tokens: 2 } });
  const app = await buildApp({ dataDir: tmp() });
  try {
    const n = 30_000;
    const before = heap();
    const r = await app.inject({ method: 'POST', url: '/api/runs', payload: spec(sse.url, n) });
    if (r.statusCode !== 201) throw new Error(r.body);
    const id = (r.json() as { id: string }).id;
    const t0 = performance.now();
    let peak = 0;
    let ended = 0;
    let mid: { heap: number; ended: number; events: number } | null = null;
    let events = 0;
    for (;;) {
      await sleep(250);
      const s = app.hub.tracker(id)?.state;
      if (!s) break;
      ended = s.counts.completed + s.counts.failed;
      // A second reading part-way: the difference is what each further finished request costs.
      if (!mid && ended >= n * 0.3) mid = { heap: heap() - before, ended, events: s.seq };
      // Near the end the engine still holds every request's record: that is the most this run holds.
      if (ended >= n * 0.95) {
        peak = heap() - before;
        events = s.seq;
        break;
      }
    }
    const s = (performance.now() - t0) / 1000;
    const per = peak / Math.max(1, ended);
    console.log(
      `memory per finished request, whole dashboard run (engine + hub + store), ${ended.toLocaleString('en')} of ${n.toLocaleString('en')} requests done in ${s.toFixed(1)} s: ${per.toFixed(0)} B (target < 1,024 B) ${verdict(per < 1024)}`,
    );
    if (mid) {
      const marginal = (peak - mid.heap) / Math.max(1, ended - mid.ended);
      console.log(
        `  per further finished request (from ${mid.ended.toLocaleString('en')} to ${ended.toLocaleString('en')} done, events ${mid.events.toLocaleString('en')} to ${events.toLocaleString('en')}; leaves out what a run holds whatever its size, compiled code, and once full the hub's ring of the last 50,000 events): ${marginal.toFixed(0)} B (target ≤ 400 B) ${verdict(marginal <= 400)}`,
      );
    }
    await app.inject({ method: 'POST', url: `/api/runs/${id}/cancel` });
  } finally {
    await app.close();
    await sse.close();
  }
}

/** A WebSocket client in its own thread; resolves the lags (ms) of the `total` events it received. */
async function clientThread(port: number, runId: string, total: number, base: number) {
  const w = new Worker(new URL('./wsClient.worker.mjs', import.meta.url), {
    workerData: { url: `ws://127.0.0.1:${port}/ws`, runId, total, base },
  });
  await new Promise<void>((resolve, reject) => {
    w.once('error', reject);
    w.once('message', () => resolve());
  });
  const done = new Promise<{ lastAt: number; lags: Float64Array }>((resolve) =>
    w.on('message', (m) => m.type === 'done' && resolve(m)),
  );
  return { done, stop: () => w.terminate() };
}

async function importUnderLoad(): Promise<void> {
  const app = await buildApp({ dataDir: tmp(), ws: { batchMs: 50 } });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const port = (app.server.address() as { port: number }).port;
  const base = `http://127.0.0.1:${port}`;
  const body = bigVllmResult(400_000);
  // A live run: 1,000 events/s appended in 10 ms ticks, its client in its own thread.
  sqliteOf(app.store).runs.insertRun(newRun('live'));
  app.hub.open('live', null);
  const abs = () => performance.timeOrigin + performance.now();
  const origin = abs();
  const perTick = 10;
  const total = 60_000;
  const client = await clientThread(port, 'live', total, origin);
  let seq = 0;
  const ticker = setInterval(() => {
    for (let k = 0; k < perTick && seq < total; k++) {
      const e: RunEvent = {
        type: 'request.progress',
        t: abs() - origin,
        index: seq % 100,
        outputTokens: seq,
        audioS: 1,
      };
      seq = app.hub.append('live', e);
    }
  }, 10);
  // The uploader gets the body (a copy) before anything is measured.
  const uploader = new Worker(new URL('./uploadClient.worker.mjs', import.meta.url), {
    workerData: { url: `${base}/api/import`, body },
  });
  await new Promise((resolve, reject) => {
    uploader.once('error', reject);
    uploader.once('message', resolve);
  });
  await sleep(500);
  const seqAtStart = seq;
  const presets: number[] = [];
  let importing = true;
  const upload = new Promise<{ status: number }>((resolve) => uploader.once('message', resolve));
  uploader.postMessage('go');
  // Open loop: one request due every 20 ms, its latency counted from when it was due (a stalled
  // event loop delays every request that should have been sent meanwhile, not just the one in flight).
  const inFlight: Promise<void>[] = [];
  const poller = (async () => {
    const start = performance.now();
    for (let k = 0; importing; k++) {
      const due = start + k * 20;
      const wait = due - performance.now();
      if (wait > 0) await sleep(wait);
      inFlight.push(
        fetch(`${base}/api/presets`)
          .then((r) => r.arrayBuffer())
          .then(() => void presets.push(performance.now() - due)),
      );
    }
    await Promise.all(inFlight);
  })();
  const loop = monitorEventLoopDelay({ resolution: 5 });
  loop.enable();
  const t0 = performance.now();
  const r = await upload;
  loop.disable();
  const took = (performance.now() - t0) / 1000;
  importing = false;
  await poller;
  const seqAtEnd = seq;
  clearInterval(ticker);
  const rest = total - seq;
  for (let k = 0; k < rest; k++)
    seq = app.hub.append('live', { type: 'request.progress', t: abs() - origin, index: 0, outputTokens: 0, audioS: 0 });
  const { lags } = await client.done;
  await client.stop();
  const during = Array.from(lags.subarray(seqAtStart, seqAtEnd));
  const p99 = pct(presets, 99);
  console.log(
    `28 MB import (${(body.length / 1024 / 1024).toFixed(1)} MB, 400,000 requests): ${r.status} in ${took.toFixed(1)} s; GET /api/presets meanwhile: ${presets.length} answered, p50 ${pct(presets, 50).toFixed(0)} ms, p99 ${p99.toFixed(0)} ms, max ${Math.max(...presets).toFixed(0)} ms (target p99 < 100 ms) ${verdict(p99 < 100)}`,
  );
  console.log(
    `  the dashboard's event loop meanwhile (monitorEventLoopDelay, 5 ms resolution): p99 delay ${(loop.percentile(99) / 1e6).toFixed(0)} ms, longest ${(loop.max / 1e6).toFixed(0)} ms`,
  );
  const lagP99 = pct(during, 99);
  console.log(
    `  live WS deltas meanwhile: ${during.length.toLocaleString('en')} events appended and delivered (${Math.round(took * 1000).toLocaleString('en')} due at 1,000/s), lag p50 ${pct(during, 50).toFixed(0)} ms, p99 ${lagP99.toFixed(0)} ms, max ${Math.max(...during).toFixed(0)} ms (target: keep flowing, p99 < 250 ms) ${verdict(during.length >= took * 1000 * 0.5 && lagP99 < 250)}`,
  );
  await uploader.terminate();
  await app.close();
}

async function shutdownDuringBigRun(): Promise<void> {
  const sse = await startServerProcess({ rest: { kind: 'ok', tokens: 2 } });
  const bin = fileURLToPath(new URL('../../bin/stallscope.js', import.meta.url));
  const child = spawn(
    process.execPath,
    [...(process.env.SERVE_NODE_ARGS?.split(' ') ?? []), bin, 'serve', '--port', '0', '--data-dir', tmp()],
    {
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  try {
    let out = '';
    const url = await new Promise<string>((resolve, reject) => {
      child.stdout!.setEncoding('utf8').on('data', (d: string) => {
        out += d;
        const m = /listening on (http:\/\/\S+)\n/.exec(out);
        if (m) resolve(m[1]);
      });
      child.once('exit', (c) => reject(new Error(`serve exited ${c}`)));
    });
    const r = await fetch(`${url}/api/runs`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(spec(sse.url, 1_000_000)),
    });
    if (r.status !== 201) throw new Error(await r.text());
    await sleep(5000);
    const exited = new Promise<number | null>((res) => child.once('exit', (c) => res(c)));
    const t0 = performance.now();
    child.kill('SIGTERM');
    const code = await exited;
    const s = (performance.now() - t0) / 1000;
    console.log(
      `SIGTERM during a 1,000,000-request run (concurrency 10, inputLen 32) to exit: ${s.toFixed(2)} s, exit ${code} (target < 2 s) ${verdict(s < 2 && code === 0)}`,
    );
  } finally {
    if (child.exitCode === null) child.kill('SIGKILL');
    await sse.close();
  }
}

// BENCH_ONLY=shutdown,import runs only those sections.
const only = process.env.BENCH_ONLY?.split(',');
const sections: [string, () => Promise<void>][] = [
  ['memory', hubMemory],
  ['runMemory', runMemory],
  ['import', importUnderLoad],
  ['shutdown', shutdownDuringBigRun],
];
try {
  for (const [name, fn] of sections) if (!only || only.includes(name)) await fn();
} finally {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
}
