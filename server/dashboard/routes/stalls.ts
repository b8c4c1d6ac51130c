/**
 * GET /api/stalls: the stall board (docs/design.md#stall-board). Filter by
 * any metadata key (`metadata=ci_pipeline=vllm-omni`, repeatable) and by
 * when the runs happened (`since`, `until`); `last` is how many runs of a
 * job its strip shows; `fingerprint` keeps one fingerprint's groups; `limit`
 * how many groups (default 25, the most frequent first). Reply
 * `{groups: [...], groupsTotal, runsConsidered, truncated}`, one group per scope (a CI job,
 * or the runs without CI metadata) and fingerprint, with the deprecated
 * snake_case aliases until 0.2.0.
 */
import { Type, type Static } from 'typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { ErrorReplySchema } from '../../../shared/protocol/apiSchemas.ts';
import { BOARD_DEFAULT_GROUPS, BOARD_MAX_GROUPS, BOARD_MAX_RUNS } from '../../../shared/stalls/boardLimits.ts';
import { StallsReplySchema, type BoardPick } from '../../../shared/stalls/stallsApi.ts';
import type { BoardFilter } from '../store/common/records.ts';
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

type StallsQueryT = Static<typeof StallsQuery>;

/** The store's board arguments for a query: one rule for the route and the warm-up read, so both share a kept board. */
export function boardArgs(q: StallsQueryT): { filter: BoardFilter; last: number; pick: BoardPick } {
  return {
    filter: {
      metadata: metadataPairs(q.metadata),
      since: timeParam(q.since, 'since'),
      until: timeParam(q.until, 'until'),
      maxRuns: BOARD_MAX_RUNS,
    },
    last: q.last,
    pick: { limit: q.limit, fingerprint: q.fingerprint },
  };
}

/** What a viewer opening Stalls asks for: the query's defaults. */
export const DEFAULT_BOARD = boardArgs({ last: 20, limit: BOARD_DEFAULT_GROUPS });

export const stallRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/api/stalls',
    { schema: { querystring: StallsQuery, response: { 200: StallsReplySchema, 400: ErrorReplySchema } } },
    async (req, reply) => {
      const { filter, last, pick } = boardArgs(req.query);
      await app.store.ingest.flush(); // live runs' latest reports and timeouts may still be queued
      // Counted and serialized by the store (SQLite: on its reader thread), so viewers never hold ingest or the
      // event loop (docs/design.md#stall-board), and served again while nothing it reads has changed
      // (docs/design.md#board-cache); the text is `stallsReply`'s, the schema's shape.
      return sendJsonText(reply, await app.store.board.viewJson(filter, last, pick));
    },
  );
};
