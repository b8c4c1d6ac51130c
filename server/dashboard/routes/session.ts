/**
 * GET /api/session: the scope of the token this request carries (docs/design.md#tokens), for the web UI to show
 * only the actions that scope allows. Any valid token may ask (a report token too); none is 401, as elsewhere.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { SessionReplySchema } from '../../../shared/protocol/tokens.ts';

export const sessionRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get('/api/session', { schema: { response: { 200: SessionReplySchema } } }, async (req) => ({
    scope: req.caller?.scope ?? 'admin',
    tokenRequired: app.tokens.required,
  }));
};
