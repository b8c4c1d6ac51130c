/**
 * Reproduction-target benchmarks: Code2Wav decode speed, the watchdog's
 * per-phase cost, stall detection latency, stack capture time, and /health
 * latency while every worker spins. Prints each figure with its target.
 */
import { Code2WavPool } from '#server/repro/code2wav/pool.ts';
import { FaultPlan, parseFaultSpec } from '#server/repro/code2wav/faults.ts';
import { TelemetryOutbox } from '#server/repro/telemetry/outbox.ts';
import { WatchdogMonitor } from '#server/repro/watchdog/monitor.ts';
import { captureWorkerStack } from '#server/repro/watchdog/stackCapture.ts';
import { InspectorLink } from '#server/repro/watchdog/inspectorLink.ts';
import { createProgressBuffer, ProgressWriter } from '#server/repro/watchdog/progress.ts';
import { startReproServer } from '#server/repro/server.ts';
import { SILENCE_CODE } from '#server/repro/code2wav/kernels/model.ts';
import type { DecodeItem } from '#server/repro/code2wav/worker/messages.ts';
import type { WatchdogStallReport } from '#shared/types.ts';

const MODEL = 'openbmb/MiniCPM-o-4_5';
const SETTINGS = { steps: 10, cfg: true, cfgRate: 0.7, mode: 'eager' as const };
const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  const i = (s.length - 1) * p;
  return s[Math.floor(i)] + (s[Math.ceil(i)] - s[Math.floor(i)]) * (i - Math.floor(i));
};
const line = (name: string, value: string, target: string, ok: boolean) =>
  console.log(`${name.padEnd(44)} ${value.padStart(14)}   target ${target.padEnd(12)} ${ok ? 'ok' : 'MISSED'}`);
const codes = (salt: number) =>
  Int32Array.from({ length: 28 }, (_, i) => (i < 3 ? SILENCE_CODE : (salt * 7919 + i * 104729) % 6561));
const window = (key: string, salt: number): DecodeItem => ({
  key,
  requestId: key,
  chunkSeq: 0,
  cacheEpoch: 0,
  lastChunk: true,
  contextCodes: 3,
  codes: codes(salt),
});

function pool(workers: number, faults: string[], onOpEnd?: (w: number, op: number, end: number) => void) {
  return new Code2WavPool({
    workers,
    maxBatch: 4,
    modelName: MODEL,
    seed: 0,
    settings: SETTINGS,
    telemetry: new TelemetryOutbox(MODEL, []),
    inflight: () => 0,
    faults: new FaultPlan(faults.map(parseFaultSpec), 0),
    onOpEnd,
  });
}

async function decodeSpeed() {
  const p = pool(1, []);
  await p.ready();
  const single: number[] = [];
  for (let i = 0; i < 20; i++) {
    const t0 = performance.now();
    await p.submit(window(`s${i}`, i));
    single.push(performance.now() - t0);
  }
  const n = 40;
  const t0 = performance.now();
  const outs = await Promise.all(Array.from({ length: n }, (_, i) => p.submit(window(`b${i}`, i))));
  const wall = (performance.now() - t0) / 1000;
  const audio = outs.reduce((a, o) => a + o.samples, 0) / 24000;
  await p.close();
  line('decode: 1 s window, batch 1, p50 (ms)', pct(single, 0.5).toFixed(1), '< 100', pct(single, 0.5) < 100);
  line('decode speed, batches of 4 (audio s / wall s)', (audio / wall).toFixed(1), '> 10', audio / wall > 10);
}

function phaseCost() {
  const w = new ProgressWriter(createProgressBuffer());
  w.begin(1, 4);
  const details = { mode: 'eager', steps: 10, step: 0, cfg_rate: 0.7, rows: 8 };
  for (let i = 0; i < 20_000; i++) w.phase('cfm', { ...details, step: i });
  const n = 200_000;
  const t0 = performance.now();
  for (let i = 0; i < n; i++) w.phase('cfm', { ...details, step: i });
  const us = ((performance.now() - t0) * 1000) / n;
  line('watchdog overhead: one phase() call (µs)', us.toFixed(2), '< 10', us < 10);
}

async function detectionLatency() {
  const reports: WatchdogStallReport[] = [];
  const at: number[] = [];
  let monitor: WatchdogMonitor | null = null;
  const p = pool(5, ['encoder:slow:p=1:ms=350'], (w, op, end) => monitor?.opEnded(w, op, end));
  monitor = new WatchdogMonitor({
    timeoutS: 0.1,
    model: MODEL,
    workers: () => p.workers(),
    emit: () => undefined,
    log: () => undefined,
    onReport: (r) => {
      reports.push(r);
      at.push(Date.now());
    },
  });
  await p.ready();
  monitor.start();
  for (let round = 0; round < 10; round++)
    await Promise.all(Array.from({ length: 5 }, (_, i) => p.submit(window(`d${round}-${i}`, i))));
  await monitor.close();
  await p.close();
  const lat = reports.map((r, i) => at[i] - r.deadlineMs);
  line(
    `detection latency p99 over ${reports.length} stalls (ms)`,
    pct(lat, 0.99).toFixed(1),
    '< 200',
    reports.length >= 50 && pct(lat, 0.99) < 200,
  );
  line('detection latency p50 (ms)', pct(lat, 0.5).toFixed(1), '', true);
}

async function captureTime() {
  const p = pool(1, ['hift:block']);
  await p.ready();
  p.submit(window('c', 1)).catch(() => undefined);
  const w = p.workers()[0];
  while (w.reader.snapshot().phase !== 'hift') await new Promise((r) => setTimeout(r, 5));
  const cold: number[] = [];
  for (let i = 0; i < 5; i++) cold.push((await captureWorkerStack(w.threadId, () => true)).durationMs);
  // The watchdog's way: one link, the worker's debugger enabled ahead of time.
  const link = new InspectorLink();
  await link.prepare(w.threadId);
  const times: number[] = [];
  let top = '';
  for (let i = 0; i < 50; i++) {
    const r = await link.capture(w.threadId, () => true);
    times.push(r.durationMs);
    top = r.frames[0]?.function ?? r.error ?? '';
  }
  await link.close();
  await p.close();
  line('stack capture, one-shot attach+enable, p50 (ms)', pct(cold, 0.5).toFixed(1), '', true);
  line('stack capture (watchdog link) p50 (ms)', pct(times, 0.5).toFixed(1), '< 100', pct(times, 0.5) < 100);
  line(
    `stack capture (watchdog link) p99 (ms), top ${top}`,
    pct(times, 0.99).toFixed(1),
    '< 100',
    pct(times, 0.99) < 100,
  );
}

async function healthWhileSpinning() {
  const s = await startReproServer({ workers: 2, tokenRate: 1000, faults: ['encoder:spin:p=1'] });
  const body = JSON.stringify({
    model: MODEL,
    messages: [{ role: 'user', content: 'spin now' }],
    stream: true,
    max_tokens: 8,
    ignore_eos: true,
  });
  for (let i = 0; i < 2; i++) {
    fetch(`${s.url}/v1/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body })
      .then((r) => r.text())
      .catch(() => undefined);
  }
  for (;;) {
    const h = await (await fetch(`${s.url}/health`)).json();
    if (h.workers.every((w: { busy: boolean }) => w.busy)) break;
    await new Promise((r) => setTimeout(r, 10));
  }
  const times: number[] = [];
  for (let i = 0; i < 300; i++) {
    const t0 = performance.now();
    await (await fetch(`${s.url}/health`)).json();
    times.push(performance.now() - t0);
  }
  await s.close();
  line('/health p50 while all workers spin (ms)', pct(times, 0.5).toFixed(1), '', true);
  line('/health p99 while all workers spin (ms)', pct(times, 0.99).toFixed(1), '< 20', pct(times, 0.99) < 20);
}

const { loadavg, cpus } = await import('node:os');
console.log(
  `reproduction server (Code2Wav stage, watchdog) — load average ${loadavg()[0].toFixed(1)} on ${cpus().length} cores`,
);
await decodeSpeed();
phaseCost();
await detectionLatency();
await captureTime();
await healthWhileSpinning();
