/**
 * The store the token, retention and metrics tests run on. One factory, so
 * the same tests can run on another store (PostgreSQL) by swapping it: they
 * reach the database only through the store's interfaces (`tokens`,
 * `retention`, `metrics`, the run reads) and the hub, never through SQL.
 */
import type { FastifyInstance } from 'fastify';
import type { AppOptions } from '#server/dashboard/app.ts';
import type { RunEvent } from '#shared/protocol/protocol.ts';
import { finalizeRun } from '#server/dashboard/runs/finalize.ts';
import { hangRunEvents, newRun } from './sampleEvents.ts';

/** Options of an app on the store under test (the in-memory SQLite store; a data dir when given). */
export function fleetAppOptions(extra: Partial<AppOptions> = {}): Partial<AppOptions> {
  return { dataDir: null, ...extra };
}

/** A finished run that happened at `startedAtMs`, with the hang run's events (6 request rows, 1 stall report). */
export async function seedRun(
  app: FastifyInstance,
  id: string,
  startedAtMs: number,
  o: { metadata?: Record<string, string>; events?: RunEvent[]; finish?: boolean } = {},
): Promise<void> {
  // Through the interface only (recordRun reaches the SQLite store's synchronous insert), so any store serves.
  await app.store.runWrites.insertRun(newRun(id, { metadata: o.metadata ?? {} }));
  app.hub.open(id, `label-${id}`);
  let summary = null;
  for (const e of o.events ?? hangRunEvents(id, startedAtMs)) {
    app.hub.append(id, e);
    if (e.type === 'run.finished') summary = e.summary;
  }
  if (o.finish !== false) await finalizeRun(app.hub, id, { status: 'finished', summary });
  await app.store.ingest.flush();
}
