/**
 * A small engine config for tests against a loopback server: a few short
 * random prompts, all at once (rate inf), nothing saved. Each test overrides
 * what it is about, by field name: the helper puts each field in its group
 * (shared/config/runConfig.ts), read from the schema itself.
 */
import type { RunConfig } from '#shared/config/runConfig.ts';
import { RunConfigSchema } from '#shared/config/runConfig.ts';

type Groups = Omit<RunConfig, 'runId'>;
type GroupName = keyof Groups;
type Union = { [G in GroupName]: Groups[G] }[GroupName];
type Intersect<U> = (U extends unknown ? (x: U) => void : never) extends (x: infer I) => void ? I : never;

/** Every field of the run configuration by its own name, as one object (a test's shorthand). */
export type FlatBenchConfig = { runId: string } & Intersect<Union>;

const GROUPS = Object.keys(RunConfigSchema.properties).filter((k) => k !== 'runId') as GroupName[];
const GROUP_OF = new Map<string, GroupName>(
  GROUPS.flatMap((g) => Object.keys(RunConfigSchema.properties[g].properties).map((k) => [k, g] as const)),
);

/** A config from fields named as they are, each put in its group; a field that is no config field throws. */
export function groupedConfig(flat: Partial<FlatBenchConfig>): RunConfig {
  const out: Record<string, Record<string, unknown>> = Object.fromEntries(GROUPS.map((g) => [g, {}]));
  const config: Record<string, unknown> = { ...out };
  for (const [k, v] of Object.entries(flat)) {
    if (k === 'runId') config.runId = v;
    else {
      const g = GROUP_OF.get(k);
      if (!g) throw new Error(`${k} is not a run configuration field`);
      out[g][k] = v;
    }
  }
  return config as RunConfig;
}

/** The fields of the tests' default config. */
export function testBenchFields(baseUrl: string): FlatBenchConfig {
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
  };
}

export function testBenchConfig(baseUrl: string, over: Partial<FlatBenchConfig> = {}): RunConfig {
  return groupedConfig({ ...testBenchFields(baseUrl), ...over });
}

/** A config's fields by their own names (the inverse of groupedConfig): to override one field of a built config. */
export function flatConfigOf(c: RunConfig): FlatBenchConfig {
  const { runId, ...groups } = c;
  return Object.assign({ runId }, ...Object.values(groups)) as FlatBenchConfig;
}
