/**
 * The app's shared services, as Fastify decorators (typed here, where they
 * are declared): the store, the one broadcaster, the run manager and the
 * `--report-to` runs.
 */
import type { FastifyInstance } from 'fastify';
import type { DashboardStore } from '../store/common/storeApi.ts';
import type { Hub } from '../hub/hub.ts';
import type { RunStarter } from '../runs/types.ts';
import type { ExternalRuns } from '../runs/externalRuns.ts';
import type { TokenService } from '../auth/tokens.ts';
import type { Pruner } from '../retention/pruner.ts';

declare module 'fastify' {
  interface FastifyInstance {
    store: DashboardStore;
    hub: Hub;
    runManager: RunStarter;
    externalRuns: ExternalRuns;
    /** Scoped tokens (docs/design.md#tokens). */
    tokens: TokenService;
    /** Retention's worker (docs/design.md#retention). */
    pruner: Pruner;
  }
}

export function decorateContext(
  app: FastifyInstance,
  c: {
    store: DashboardStore;
    hub: Hub;
    runManager: RunStarter;
    externalRuns: ExternalRuns;
    tokens: TokenService;
    pruner: Pruner;
  },
): void {
  app.decorate('store', c.store);
  app.decorate('hub', c.hub);
  app.decorate('runManager', c.runManager);
  app.decorate('externalRuns', c.externalRuns);
  app.decorate('tokens', c.tokens);
  app.decorate('pruner', c.pruner);
}
