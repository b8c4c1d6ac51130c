/**
 * GET /api/stalls: the stall board (docs/design.md#stall-board). Filter by
 * any metadata key (`metadata=ci_pipeline=vllm-omni`, repeatable) and by
 * when the runs happened (`since`, `until`); `last` is how many runs of a
 * job its strip shows; `fingerprint` keeps one fingerprint's groups; `limit`
 * how many groups (default 100, the most frequent first). Reply
 * `{groups: [...], groupsTotal, runsConsidered, truncated}`, one group per scope (a CI job,
 * or the runs without CI metadata) and fingerprint, with the deprecated
 * snake_case aliases until 0.2.0.
 */
import { Type } from 'typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { ErrorReplySchema } from '../../../shared/protocol/apiSchemas.ts';
import {
  BOARD_DEFAULT_GROUPS,
  BOARD_MAX_GROUPS,
  BOARD_MAX_RUNS,
  StallsReplySchema,
} from '../../../shared/stalls/stallsApi.ts';
import { sendJsonText } from './jsonText.ts';
import { MetadataParam, metadataPairs, TimeParam, timeParam } from './query.ts';

const StallsQuery = Type.Object({
  metadata: MetadataParam,
  since: TimeParam,
  until: TimeParam,
  last: Type.Integer({ minimum: 1, maximum: 500, default: 20 }),
  /** How many groups the reply holds (the most frequent first); `groupsTotal` says how many matched. */
  limit: Type.Integer({ minimum: 1, maximum: BOARD_MAX_GROUPS, default: BOARD_DEFAULT_GROUPS }),
  /** Only this fingerprint's groups (one per scope it occurred in): what a CI job's summary links to. */
  fingerprint: Type.Optional(Type.String({ pattern: '^[0-9a-f]{12}$' })),
});

export const stallRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/api/stalls',
    { schema: { querystring: StallsQuery, response: { 200: StallsReplySchema, 400: ErrorReplySchema } } },
    async (req, reply) => {
      const q = req.query;
      const filter = {
        metadata: metadataPairs(q.metadata),
        since: timeParam(q.since, 'since'),
        until: timeParam(q.until, 'until'),
        maxRuns: BOARD_MAX_RUNS,
      };
      await app.store.ingest.flush(); // live runs' latest reports and timeouts may still be queued
      // Counted and serialized by the store (SQLite: on its reader thread), so viewers never hold ingest or the
      // event loop (docs/design.md#stall-board); the text is `stallsReply`'s, the schema's shape.
      const json = await app.store.board.viewJson(filter, q.last, { limit: q.limit, fingerprint: q.fingerprint });
      return sendJsonText(reply, json);
    },
  );
};
