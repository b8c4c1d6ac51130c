/**
 * POST /api/runs/:id/pin and /unpin: a pinned run is never pruned by
 * retention (docs/design.md#retention). Reply `{id, pinned}`.
 */
import { Type } from 'typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { ErrorReplySchema } from '../../../shared/protocol/apiSchemas.ts';
import { StallscopeError } from '../../../shared/errors.ts';

const Params = Type.Object({ id: Type.String({ minLength: 1, maxLength: 200 }) });
const Reply = Type.Object({ id: Type.String(), pinned: Type.Boolean() });

export const pinRoutes: FastifyPluginAsyncTypebox = async (app) => {
  for (const [path, pinned] of [
    ['/api/runs/:id/pin', true],
    ['/api/runs/:id/unpin', false],
  ] as const) {
    app.post(path, { schema: { params: Params, response: { 200: Reply, 404: ErrorReplySchema } } }, async (req) => {
      const { id } = req.params;
      if (!(await app.store.retention.setPinned(id, pinned))) throw new StallscopeError('API_NOT_FOUND', `run ${id}`);
      return { id, pinned };
    });
  }
};
