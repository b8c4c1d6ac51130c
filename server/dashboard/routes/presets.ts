/** GET /api/presets (the form's named specs) and GET /api/schema/run-spec (the RunSpec JSON Schema). */
import { Type } from 'typebox';
import type { FastifyInstance } from 'fastify';
import { PRESETS } from '../../../shared/config/presets.ts';
import { RunSpecSchema } from '../../../shared/config/runSpec.ts';

export async function presetRoutes(app: FastifyInstance): Promise<void> {
  app.get(
    '/api/presets',
    {
      schema: {
        response: {
          200: Type.Object({
            presets: Type.Array(
              Type.Object({
                id: Type.String(),
                title: Type.String(),
                description: Type.String(),
                spec: Type.Unknown(),
              }),
            ),
          }),
        },
      },
    },
    async () => ({ presets: PRESETS }),
  );
  app.get('/api/schema/run-spec', async () => JSON.parse(JSON.stringify(RunSpecSchema)) as unknown);
}
