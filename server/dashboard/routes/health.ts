/**
 * GET /api/health: liveness, what is running and the store's state — whether its database answers and how
 * much waits in the outage buffer (docs/design.md#outage-buffer) — for scripts and the UI's connection check.
 */
import { Type } from 'typebox';
import type { FastifyInstance } from 'fastify';
import { PROTOCOL_VERSION } from '../../../shared/protocol/protocol.ts';
import { Nullable } from '../../../shared/protocol/apiSchemas.ts';
import { StoreHealthSchema } from '../../../shared/protocol/storeHealth.ts';

export async function healthRoutes(app: FastifyInstance): Promise<void> {
  app.get(
    '/api/health',
    {
      schema: {
        response: {
          200: Type.Object({
            ok: Type.Boolean(),
            protocol: Type.Integer(),
            activeRuns: Type.Array(Type.String()),
            store: StoreHealthSchema,
            /** Telemetry events that joined no run since the process started (never silently dropped). */
            telemetry: Type.Object({
              unjoined: Type.Integer({ minimum: 0 }),
              lastUnjoinedAtMs: Nullable(Type.Number()),
            }),
          }),
        },
      },
    },
    async () => {
      const store = app.store.ingest.health();
      const { events, lastAtMs } = app.hub.unjoined;
      return {
        ok: store.connected,
        protocol: PROTOCOL_VERSION,
        activeRuns: app.hub.activeIds(),
        store,
        telemetry: { unjoined: events, lastUnjoinedAtMs: lastAtMs || null },
      };
    },
  );
}
