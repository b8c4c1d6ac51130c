/**
 * /api/tokens (admin only, docs/design.md#tokens): create a scoped token
 * (the reply is the only time it is shown), list them (never the tokens, only
 * their first characters), revoke one (refused from the next request on, its
 * live streams closed now).
 */
import { Type } from 'typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { ErrorReplySchema } from '../../../shared/protocol/apiSchemas.ts';
import {
  CreateTokenBodySchema,
  CreateTokenReplySchema,
  TokenInfoSchema,
  TokenListReplySchema,
} from '../../../shared/protocol/tokens.ts';

export const tokenRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.post(
    '/api/tokens',
    {
      schema: {
        body: CreateTokenBodySchema,
        response: { 201: CreateTokenReplySchema, 400: ErrorReplySchema, 409: ErrorReplySchema },
      },
    },
    async (req, reply) => reply.status(201).send(await app.tokens.create(req.body.name, req.body.scope)),
  );
  app.get('/api/tokens', { schema: { response: { 200: TokenListReplySchema } } }, async () => ({
    tokens: await app.tokens.list(),
  }));
  app.delete(
    '/api/tokens/:id',
    {
      schema: {
        params: Type.Object({ id: Type.String({ minLength: 1, maxLength: 100 }) }),
        response: { 200: TokenInfoSchema, 404: ErrorReplySchema },
      },
    },
    async (req) => app.tokens.revoke(req.params.id),
  );
};
