/**
 * The app's shared services, as Fastify decorators (typed here, where they
 * are declared): the store, the one broadcaster, the run manager and the
 * `--report-to` runs.
 */
import type { FastifyInstance } from 'fastify';
import type { DashboardStore } from '../store/storeApi.ts';
import type { Hub } from '../hub/hub.ts';
import type { RunStarter } from '../runs/types.ts';
import type { ExternalRuns } from '../runs/externalRuns.ts';

declare module 'fastify' {
  interface FastifyInstance {
    store: DashboardStore;
    hub: Hub;
    runManager: RunStarter;
    externalRuns: ExternalRuns;
  }
}

export function decorateContext(
  app: FastifyInstance,
  c: { store: DashboardStore; hub: Hub; runManager: RunStarter; externalRuns: ExternalRuns },
): void {
  app.decorate('store', c.store);
  app.decorate('hub', c.hub);
  app.decorate('runManager', c.runManager);
  app.decorate('externalRuns', c.externalRuns);
}
