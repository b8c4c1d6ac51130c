/**
 * Child process of firstRequest.test.ts: a fresh process (nothing compiled
 * yet) runs the engine against the parent's loopback server, one request at a
 * time, with the main thread's CPU time injected as the engine's clock. A request's `ttft` and
 * `latency` are then the client's own work from dispatch to the first token
 * and to the end: dispatch, connect, and parse, with no waiting counted.
 * argv: url, "warm" | "cold". Prints JSON { ttft: number[], latency: number[] }.
 */
import { runBenchmark } from '#server/engine/engine.ts';
import { testBenchConfig } from '#test/helpers/benchConfig.ts';
import { threadCpuClock } from '#test/helpers/threadCpu.ts';

const [url, mode] = process.argv.slice(2);
// The main thread's own CPU time: it stands still while the thread waits, so the figure is the client's work.
const cpuSeconds = threadCpuClock();
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
if (out.summary.counts.completed !== 16) throw new Error(`completed ${out.summary.counts.completed}/16`);
process.stdout.write(
  JSON.stringify({ ttft: [...out.records].map((r) => r.ttft), latency: [...out.records].map((r) => r.latency) }),
);
