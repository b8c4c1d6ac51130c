/**
 * The maintainers' story as stored runs: one Buildkite job (vllm-omni /
 * minicpmo-accuracy) of eight runs on three agents — five hang in HiFT, two
 * pass, one fails for another reason — a second job whose one stall is a
 * first timeout without a stack (a phase-only fingerprint), and three local
 * runs (no CI metadata) of which two hang the same way. Recorded through the
 * hub as the run manager would (either store), one run an hour.
 */
import type { FastifyInstance } from 'fastify';
import type { RunEvent } from '#shared/protocol/protocol.ts';
import { seedRun } from './fleetStore.ts';
import { completedRequest, hangRunEvents, runStarted } from './sampleEvents.ts';

const HOUR = 3_600_000;
export const STORY_T0 = Date.UTC(2026, 3, 1);

function finished(verdict: string): RunEvent {
  const counts = { total: 1, completed: 1, failed: 0, timedOut: 0, cancelledAfterTimeout: 0, cancelled: 0 };
  return {
    type: 'run.finished',
    t: 10,
    summary: {
      verdict,
      verdictReasons: verdict === 'passed' ? [] : ['accuracy below the gate'],
      durationS: 0.01,
      breakerTripped: false,
      cause: null,
      counts: { ...counts, errored: 0, unsent: 0 },
      metrics: {},
    },
  } as RunEvent;
}

/** A run with one completed request and `verdict` (a failure with no stall evidence unless it is `passed`). */
const plainEvents = (id: string, at: number, verdict: string): RunEvent[] => [
  runStarted(id, 1, at),
  ...completedRequest(id, 0),
  finished(verdict),
];
/** The sample hang: a watchdog report in hift (its stack) and a first timeout. */
const stackEvents = (id: string, at: number) => hangRunEvents(id, at);
/** The sample hang without its watchdog report: only the first timeout, in hift as the telemetry placed it. */
const timeoutEvents = (id: string, at: number) =>
  hangRunEvents(id, at).filter((e) => !(e.type === 'telemetry' && e.event.type === 'watchdog.stall'));

type Kind = 'stack' | 'timeout' | 'passed' | 'failed';
const EVENTS: Record<Kind, (id: string, at: number) => RunEvent[]> = {
  stack: stackEvents,
  timeout: timeoutEvents,
  passed: (id, at) => plainEvents(id, at, 'passed'),
  failed: (id, at) => plainEvents(id, at, 'failed_closed'),
};

export const BUILD_URL = (build: string) => `https://buildkite.com/vllm/vllm-omni/builds/${build}`;

const ci = (build: string, node: string, step: string): Record<string, string> => ({
  ci_provider: 'buildkite',
  ci_build: build,
  ci_build_url: BUILD_URL(build),
  ci_node: node,
  ci_commit: `c0ffee${build}`,
  ci_pipeline: 'vllm-omni',
  ci_step: step,
});

/** [run id, kind, metadata] in time order. */
export const STORY: [string, Kind, Record<string, string>][] = [
  ['bench-14500', 'passed', ci('14500', 'mi325-agent-1', 'minicpmo-accuracy')],
  ['bench-14528', 'stack', ci('14528', 'mi325-agent-1', 'minicpmo-accuracy')],
  ['local-ok', 'passed', {}],
  ['bench-14541', 'passed', ci('14541', 'mi325-agent-2', 'minicpmo-accuracy')],
  ['bench-14598', 'stack', ci('14598', 'mi325-agent-2', 'minicpmo-accuracy')],
  ['bench-14604', 'stack', ci('14604', 'mi325-agent-3', 'minicpmo-accuracy')],
  ['local-1', 'stack', {}],
  ['bench-14606', 'stack', ci('14606', 'mi325-agent-1', 'minicpmo-accuracy')],
  ['bench-14607', 'stack', ci('14607', 'mi325-agent-2', 'minicpmo-accuracy')],
  ['bench-14610', 'failed', ci('14610', 'mi325-agent-3', 'minicpmo-accuracy')],
  ['local-2', 'stack', {}],
  ['bench-q1', 'passed', ci('14611', 'mi325-agent-3', 'qwen-accuracy')],
  ['bench-q2', 'timeout', ci('14612', 'mi325-agent-3', 'qwen-accuracy')],
];

/**
 * Records the story in `app` (either store) through its interfaces, each run finished and stored; `where` rewrites
 * each CI run's metadata (a layout test's long commits and node names).
 */
export async function recordStory(
  app: FastifyInstance,
  where: (metadata: Record<string, string>) => Record<string, string> = (m) => m,
): Promise<void> {
  for (const [i, [id, kind, metadata]] of STORY.entries())
    await seedRun(app, id, STORY_T0 + i * HOUR, {
      metadata: metadata.ci_build ? where(metadata) : metadata,
      events: EVENTS[kind](id, STORY_T0 + i * HOUR),
    });
}
