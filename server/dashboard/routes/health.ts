/** GET /api/health: liveness and what is running (for scripts and the UI's connection check). */
import { Type } from 'typebox';
import type { FastifyInstance } from 'fastify';
import { PROTOCOL_VERSION } from '../../../shared/protocol.ts';

export async function healthRoutes(app: FastifyInstance): Promise<void> {
  app.get(
    '/api/health',
    {
      schema: {
        response: {
          200: Type.Object({ ok: Type.Boolean(), protocol: Type.Integer(), activeRuns: Type.Array(Type.String()) }),
        },
      },
    },
    async () => ({ ok: true, protocol: PROTOCOL_VERSION, activeRuns: app.hub.activeIds() }),
  );
}
