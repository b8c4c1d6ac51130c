/**
 * Child process of queuedStop.test.ts (run with --expose-gc): queues N requests
 * at once behind 10 slots whose requests never get past `prepare`, interrupts
 * the run, and prints one JSON line: heap bytes per queued request, per ended
 * request with the dispatch result held, the time from the interrupt until
 * runDispatch resolved, and the longest the event loop was blocked while the
 * requests arrived and while they were reported unsent.
 */
import { setMaxListeners } from 'node:events';
import { runDispatch } from '#server/engine/dispatch/dispatch.ts';
import { RunEvents } from '#server/engine/records/events.ts';
import type { BenchEvent } from '#shared/protocol/protocol.ts';
import type { RequestJob } from '#server/engine/dispatch/requestRunner.ts';
import { harness } from '#test/helpers/dispatchHarness.ts';

const n = Number(process.argv[2]);
const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error('run with --expose-gc');
const heap = (): number => {
  gc();
  gc();
  return process.memoryUsage().heapUsed;
};
const tick = (): Promise<void> => new Promise((r) => setImmediate(r));

const interrupt = new AbortController();
setMaxListeners(64, interrupt.signal); // the 10 slots' prepares and the run listen to it
// Nothing is ever sent: the port is never connected to.
const h = harness('http://127.0.0.1:9', new Array<number>(n).fill(0), {
  maxConcurrency: 10,
  interrupt: interrupt.signal,
});
const counts: Record<string, number> = {};
const bulk: BenchEvent[] = [];
const events = new RunEvents((e) => {
  counts[e.type] = (counts[e.type] ?? 0) + 1;
  if (e.type === 'requests.unsent') bulk.push(e);
});
events.startClock();
// The 10 requests holding a slot stay in `prepare` until the interrupt, then end unsent.
const job = (i: number): RequestJob => ({ index: i, requestId: `t-${i}`, headers: {}, body: '{}', promptLen: 1 });
const prepare = (i: number): Promise<RequestJob> =>
  new Promise((resolve) => interrupt.signal.addEventListener('abort', () => resolve(job(i)), { once: true }));

await tick();
const base = heap();
let arrivalLagMs = 0;
let lastArrivalTick = performance.now();
const arrivalLag = setInterval(() => {
  const now = performance.now();
  arrivalLagMs = Math.max(arrivalLagMs, now - lastArrivalTick - 5);
  lastArrivalTick = now;
}, 5);
const running = runDispatch({ ...h.input, events, prepare });
// Arrivals due at once are taken a batch per turn of the event loop: wait until all have arrived.
while ((counts['request.queued'] ?? 0) < n) await tick();
clearInterval(arrivalLag);
arrivalLagMs = Math.max(arrivalLagMs, performance.now() - lastArrivalTick - 5);
const queuedPerRequest = (heap() - base) / n;

let maxLagMs = 0;
let last = performance.now();
const lag = setInterval(() => {
  const now = performance.now();
  maxLagMs = Math.max(maxLagMs, now - last - 5);
  last = now;
}, 5);
const t0 = performance.now();
interrupt.abort();
const result = await running;
const stopMs = performance.now() - t0;
clearInterval(lag);
maxLagMs = Math.max(maxLagMs, performance.now() - last - 5); // a loop blocked to the end never ran the interval
const endedPerRequest = (heap() - base) / n;
await h.agent.destroy();
console.log(
  JSON.stringify({
    queuedPerRequest,
    endedPerRequest,
    stopMs,
    arrivalLagMs,
    maxLagMs,
    counts,
    unsent: [...result.statuses].filter((s) => s === 'not_dispatched').length,
    bulk: bulk.map((e) => (e.type === 'requests.unsent' ? [e.from, e.to, e.stoppedBy] : null)),
    interrupted: result.interrupted,
    // Held until measured: the result is what the engine keeps.
    kept: result.records.length,
  }),
);
