/**
 * Child process of the first-wave figure (firstWave.ts): a fresh process (as
 * `stallscope bench` is) runs the engine once against the given server and
 * prints each request's TTFT in seconds, in dispatch order (rate inf: index
 * order). argv: url, concurrency, requests, "warm" | "cold" (cold = no client
 * warm-up, for the before figure), "wall" | "cpu" (the engine's clock),
 * "keep-alive" | "per-request" (the engine's connection mode).
 */
import { runBenchmark } from '#server/engine/engine.ts';
import { testBenchConfig } from '../helpers/benchConfig.ts';
import { threadCpuClock } from '../helpers/threadCpu.ts';

const [url, conc, n, mode, clock, connections] = process.argv.slice(2);
// argv[5] "cpu": the main thread's CPU time as the engine's clock (Linux schedstat), so a TTFT counts the
// client's own work before the first token and none of the waiting: a figure a busy machine does not move.
const cpuSeconds = clock === 'cpu' ? threadCpuClock() : undefined;
const out = await runBenchmark(
  testBenchConfig(url, {
    runId: 'wave',
    dataset: { name: 'random', inputLen: 16, outputLen: 50 },
    numPrompts: Number(n),
    maxConcurrency: Number(conc),
    timeouts: { totalS: 30 },
    connectionMode: connections === 'keep-alive' ? 'keep_alive' : 'per_request',
  }),
  { warmClient: mode !== 'cold', now: cpuSeconds },
);
if (out.summary.counts.completed !== Number(n)) throw new Error(`completed ${out.summary.counts.completed}/${n}`);
process.stdout.write(JSON.stringify([...out.records].map((r) => r.ttft)));
