/**
 * Exports of a huge declared run (`npm run bench exportHuge`; docs/design.md#exports): a reported run that
 * declared 10,000,000 requests (10 ended, the rest one unsent range, as a stopped run's tail is stored) exported
 * in every format through a listening dashboard and read off a real socket. Prints, per format, the event loop's
 * worst delay and the heap's peak growth over the idle heap — the targets: the loop never held over 100 ms, under
 * 300 MB whatever the number of requests. STALLSCOPE_BENCH_EXPORT_REQUESTS changes the size.
 */
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { buildApp } from '#server/dashboard/app.ts';
import { recordRun } from '../helpers/dashboardApp.ts';
import { stoppedRun } from '../helpers/sampleEvents.ts';

const N = Number(process.env.STALLSCOPE_BENCH_EXPORT_REQUESTS ?? 10_000_000);
const LOOP_TARGET_MS = 100;
const HEAP_TARGET_MB = 300;

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;
const heapNow = () => {
  gc();
  return process.memoryUsage().heapUsed;
};

const app = await buildApp({ dataDir: null, logger: false });
await app.listen({ host: '127.0.0.1', port: 0 });
const addr = app.server.address();
const url = `http://127.0.0.1:${typeof addr === 'object' && addr ? addr.port : 0}`;
recordRun(app.hub, 'huge', stoppedRun('huge', N));
await app.store.ingest.flush();
let failed = false;
try {
  for (const format of ['csv', 'vllm', 'trace', 'evidence'] as const) {
    const heap0 = heapNow();
    let peak = 0;
    const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().heapUsed - heap0)), 5);
    const loop = monitorEventLoopDelay({ resolution: 10 });
    loop.enable();
    const t0 = performance.now();
    let bytes = 0;
    const r = await fetch(`${url}/api/runs/huge/export?format=${format}`);
    for await (const chunk of r.body! as unknown as AsyncIterable<Uint8Array>) bytes += chunk.length;
    const seconds = (performance.now() - t0) / 1000;
    loop.disable();
    clearInterval(sampler);
    const maxMs = loop.max / 1e6;
    const mb = peak / 2 ** 20;
    const ok = r.status === 200 && maxMs <= LOOP_TARGET_MS && mb <= HEAP_TARGET_MB;
    failed ||= !ok;
    console.log(
      `export ${format} of a run declaring ${N.toLocaleString('en')} requests: HTTP ${r.status}, ${(bytes / 2 ** 20).toFixed(0)} MB in ${seconds.toFixed(1)} s; loop max ${maxMs.toFixed(0)} ms (target ≤ ${LOOP_TARGET_MS}), heap peak +${mb.toFixed(0)} MB (target ≤ ${HEAP_TARGET_MB}) ${ok ? 'OK' : 'ABOVE'}`,
    );
  }
} finally {
  await app.close();
}
process.exitCode = failed ? 1 : 0;
