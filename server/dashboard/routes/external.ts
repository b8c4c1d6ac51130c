/**
 * The `--report-to` API used by server/engine/report/remote.ts:
 * POST /api/runs/external {runId, config, label?, metadata?} creates a live
 * run fed by a CLI; POST /api/runs/:id/events {events: BenchEvent[]} appends
 * a batch (the batch carrying `run.finished` ends the run).
 */
import { Type } from 'typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { ErrorReplySchema } from '../../../shared/protocol/apiSchemas.ts';
import { INT4_MAX } from '../../../shared/storage/storable.ts';

export const EVENTS_BODY_LIMIT = 16 * 1024 * 1024;

export const externalRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.post(
    '/api/runs/external',
    {
      schema: {
        body: Type.Object({
          runId: Type.String({ minLength: 1, maxLength: 200, pattern: '^[A-Za-z0-9._:-]+$' }),
          // The run's configuration as recorded; what is stored in INTEGER columns is bounded like them.
          config: Type.Optional(
            Type.Object(
              {
                numPrompts: Type.Optional(Type.Integer({ minimum: 0, maximum: INT4_MAX })),
                maxConcurrency: Type.Optional(
                  Type.Union([Type.Integer({ minimum: 0, maximum: INT4_MAX }), Type.Null()]),
                ),
              },
              { additionalProperties: true },
            ),
          ),
          label: Type.Optional(Type.Union([Type.String({ maxLength: 200 }), Type.Null()])),
          metadata: Type.Optional(Type.Record(Type.String({ maxLength: 64 }), Type.String({ maxLength: 512 }))),
        }),
        response: {
          201: Type.Object({ id: Type.String() }),
          400: ErrorReplySchema,
          409: ErrorReplySchema,
          503: ErrorReplySchema,
        },
      },
    },
    async (req, reply) => {
      const b = req.body;
      const id = await app.externalRuns.create(b);
      await app.tokens.recordReporter(id, req.caller);
      return reply.status(201).send({ id });
    },
  );
  app.post(
    '/api/runs/:id/events',
    {
      bodyLimit: EVENTS_BODY_LIMIT,
      schema: {
        params: Type.Object({ id: Type.String({ minLength: 1, maxLength: 200 }) }),
        // Each event is checked against the protocol's schema by ExternalRuns.append, all before any is applied.
        body: Type.Object({ events: Type.Array(Type.Unknown(), { maxItems: 100_000 }) }),
        response: {
          200: Type.Object({ lastSeq: Type.Integer() }),
          400: ErrorReplySchema,
          404: ErrorReplySchema,
          409: ErrorReplySchema,
          413: ErrorReplySchema,
          503: ErrorReplySchema,
        },
      },
    },
    async (req) => {
      const { id } = req.params;
      const { events } = req.body;
      return { lastSeq: await app.externalRuns.append(id, events) };
    },
  );
};
