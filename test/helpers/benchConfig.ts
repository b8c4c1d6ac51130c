/**
 * A small engine config for tests against a loopback server: a few short
 * random prompts, all at once (rate inf), nothing saved. Each test overrides
 * what it is about.
 */
import type { BenchConfig } from '#server/engine/config.ts';

export function testBenchConfig(baseUrl: string, over: Partial<BenchConfig> = {}): BenchConfig {
  return {
    runId: 'test',
    baseUrl,
    endpoint: '/v1/chat/completions',
    backend: 'openai-chat-omni',
    model: 'm',
    dataset: { name: 'random', inputLen: 8, outputLen: 4 },
    numPrompts: 3,
    maxConcurrency: 2,
    requestRate: 'inf',
    burstiness: 1,
    seed: 0,
    numWarmups: 0,
    percentileMetrics: ['ttft'],
    metricPercentiles: [99],
    timeouts: { totalS: 5 },
    failFast: false,
    thresholds: [],
    save: null,
    // Not read by default here: these tests count the target's arrivals and sockets (serverIdentity.ts has its own).
    serverIdentity: false,
    ...over,
  };
}
