/** Builds the app for route tests: in-memory store, a scripted run manager unless a real one is asked for. */
import { sqliteOf } from '#test/helpers/sqliteStore.ts';
import type { FastifyInstance } from 'fastify';
import { buildApp, type AppOptions } from '#server/dashboard/app.ts';
import type { Hub } from '#server/dashboard/hub/hub.ts';
import { finalizeRun } from '#server/dashboard/runs/finalize.ts';
import type { RunStarter } from '#server/dashboard/runs/types.ts';
import type { RunEvent } from '#shared/protocol/protocol.ts';
import { hangRunEvents, newRun } from './sampleEvents.ts';

export async function testApp(opts: Partial<AppOptions> = {}): Promise<FastifyInstance> {
  const app = await buildApp({ dataDir: null, store: { flushIntervalMs: 10 }, ws: { batchMs: 10 }, ...opts });
  await app.ready();
  return app;
}

/** Records a finished run straight through the hub, as the run manager would. */
export function recordRun(
  hub: Hub,
  runId: string,
  events: RunEvent[] = hangRunEvents(runId),
  o: { finish?: boolean; metadata?: Record<string, string> } = {},
): void {
  sqliteOf(hub.store).runs.insertRun(newRun(runId, { metadata: o.metadata ?? {} }));
  hub.open(runId, `label-${runId}`);
  let summary = null;
  for (const e of events) {
    hub.append(runId, e);
    if (e.type === 'run.finished') summary = e.summary;
  }
  if (o.finish !== false) void finalizeRun(hub, runId, { status: 'finished', summary });
}

/** A run manager whose runs are whatever the test appends; cancel records interrupted. */
export function scriptedManager(hub: Hub): RunStarter & { started: unknown[] } {
  const started: unknown[] = [];
  return {
    started,
    async start(spec) {
      const id = `scripted-${started.length + 1}`;
      started.push(spec);
      sqliteOf(hub.store).runs.insertRun(newRun(id));
      hub.open(id, null);
      return { id, warnings: [] };
    },
    cancel(id) {
      if (!hub.isActive(id)) return false;
      void finalizeRun(hub, id, { status: 'interrupted' });
      return true;
    },
    async shutdown() {},
  };
}
