/**
 * GET /metrics: Prometheus text format (docs/design.md#metrics), read from
 * the database at each scrape; every name starts with `stallscope_`. The
 * reporting routes' answers are counted and timed here too.
 */
import type { FastifyInstance } from 'fastify';
import { FleetMetrics } from '../metrics/fleetMetrics.ts';
import type { Pruner } from '../retention/pruner.ts';

/** Reporting routes whose answers are counted and timed (by route pattern). */
const REPORT_ROUTES = new Set(['/api/runs/external', '/api/runs/:id/events', '/api/ingest', '/api/import']);

export function metricsRoutes(pruner: Pruner) {
  const plugin = async (app: FastifyInstance): Promise<void> => {
    const metrics = new FleetMetrics({
      queries: app.store.metrics,
      writeQueue: () => app.store.ingest.queueStats(),
      failedWrites: () => app.store.ingest.queueStats().failedBatches,
      retention: () => ({ failedSweeps: pruner.stats.failedSweeps, rowsPruned: pruner.stats.rowsPruned }),
      unjoinedTelemetry: () => app.hub.unjoined.events,
    });
    app.addHook('onResponse', async (req, reply) => {
      const route = req.routeOptions.url;
      if (req.method === 'POST' && route !== undefined && REPORT_ROUTES.has(route))
        metrics.observeReport(route, reply.statusCode, reply.elapsedTime / 1000);
    });
    app.get('/metrics', async (_req, reply) => reply.type(metrics.contentType).send(await metrics.render()));
  };
  // Not encapsulated (what fastify-plugin does): the onResponse hook must see the other plugins' routes.
  return Object.assign(plugin, { [Symbol.for('skip-override')]: true });
}
