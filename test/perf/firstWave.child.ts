/**
 * Child process of engine.bench.ts's first-wave figure: a fresh process (as
 * `stallscope bench` is) runs the engine once against the given server and
 * prints each request's TTFT in seconds, in dispatch order (rate inf: index
 * order). argv: url, concurrency, requests, "warm" | "cold" (cold = no client
 * warm-up, for the before figure).
 */
import { runBenchmark } from '../../server/bench/engine.ts';

const [url, conc, n, mode] = process.argv.slice(2);
const out = await runBenchmark(
  {
    runId: 'wave',
    baseUrl: url,
    endpoint: '/v1/chat/completions',
    backend: 'openai-chat-omni',
    model: 'm',
    dataset: { name: 'random', inputLen: 16, outputLen: 50 },
    numPrompts: Number(n),
    maxConcurrency: Number(conc),
    requestRate: 'inf',
    burstiness: 1,
    seed: 0,
    numWarmups: 0,
    percentileMetrics: ['ttft'],
    metricPercentiles: [99],
    timeouts: { totalS: 30 },
    failFast: false,
    thresholds: [],
    save: null,
  },
  { warmClient: mode !== 'cold' },
);
if (out.summary.counts.completed !== Number(n)) throw new Error(`completed ${out.summary.counts.completed}/${n}`);
process.stdout.write(JSON.stringify(out.records.map((r) => r.ttft)));
