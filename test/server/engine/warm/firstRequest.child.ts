/**
 * Child process of firstRequest.test.ts: a fresh process (nothing compiled
 * yet) runs the engine against the parent's loopback server, one request at a
 * time, with the main thread's CPU time injected as the engine's clock. A request's `ttft` and
 * `latency` are then the client's own work from dispatch to the first token
 * and to the end: dispatch, connect, and parse, with no waiting counted.
 * argv: url, "warm" | "cold". Prints JSON { ttft: number[], latency: number[] }.
 */
import { closeSync, openSync, readSync } from 'node:fs';
import { runBenchmark } from '#server/engine/engine.ts';
import { testBenchConfig } from '#test/helpers/benchConfig.ts';

const [url, mode] = process.argv.slice(2);
// The main thread's own CPU time in ns, first field of schedstat (Linux): it stands still while the
// thread waits for I/O or is preempted by another process, and V8's background threads are not in it.
const fd = openSync('/proc/thread-self/schedstat', 'r');
const buf = Buffer.alloc(128);
const cpuSeconds = (): number => {
  const n = readSync(fd, buf, 0, buf.length, 0);
  return Number(buf.toString('latin1', 0, n).split(' ')[0]) / 1e9;
};
await new Promise((resolve) => setTimeout(resolve, 10)); // the event loop is running: its clock counts
const out = await runBenchmark(
  testBenchConfig(url, {
    runId: 'first',
    dataset: { name: 'random', inputLen: 16, outputLen: 50 },
    numPrompts: 16,
    maxConcurrency: 1,
    percentileMetrics: ['ttft', 'e2el'],
    timeouts: { totalS: 10 },
  }),
  { now: cpuSeconds, warmClient: mode === 'warm' },
);
closeSync(fd);
if (out.summary.counts.completed !== 16) throw new Error(`completed ${out.summary.counts.completed}/16`);
process.stdout.write(
  JSON.stringify({ ttft: [...out.records].map((r) => r.ttft), latency: [...out.records].map((r) => r.latency) }),
);
