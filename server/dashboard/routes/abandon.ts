/**
 * POST /api/runs/:id/abandon — a run reported by `stallscope bench
 * --report-to` is driven by a CLI elsewhere (another machine, a CI job): the
 * dashboard cannot cancel it. When that CLI is gone (killed, its job
 * cancelled), the maintainer marks the run abandoned: it is recorded as
 * `interrupted` by the dashboard (`interruptCause: "dashboard"`), can then be
 * deleted, and a batch its CLI still posts is refused with a 409
 * (docs/design.md#reported-runs). Also the words of the refusals of Cancel and
 * Delete for such a run, which say the same.
 */
import { Type } from 'typebox';
import type { FastifyInstance } from 'fastify';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { StallscopeError } from '../../../shared/errors.ts';
import { ErrorReplySchema } from '../../../shared/protocol/apiSchemas.ts';

const REPORTED =
  'is driven by `stallscope bench --report-to` from a CLI elsewhere, which the dashboard cannot stop: stop that CLI, ' +
  'or if it is gone mark the run abandoned (POST /api/runs/:id/abandon)';

/** Why a run cannot be cancelled here: reported by a CLI, or not running (404 when it does not exist). */
export async function cancelRefusal(app: FastifyInstance, id: string): Promise<StallscopeError> {
  if (app.externalRuns.isReported(id)) return new StallscopeError('API_CONFLICT', `run ${id} ${REPORTED}`);
  const run = await app.store.runReads.get(id);
  if (!run) return new StallscopeError('API_NOT_FOUND', `run ${id}`);
  if (run.status === 'running')
    return new StallscopeError(
      'API_CONFLICT',
      run.source === 'cli'
        ? `run ${id} ${REPORTED}`
        : `run ${id} is running on another dashboard process of this database: cancel it there`,
    );
  return new StallscopeError('API_CONFLICT', `run ${id} is not running (${run.status}): there is nothing to cancel`);
}

/**
 * Why a run cannot be deleted yet (null when it can): live here, or — several dashboards on one database — still
 * running in the database (live on another process, whose reporter would go on being answered 200 for events that
 * go nowhere). Cancel it first, or, reported by a CLI, mark it abandoned first.
 */
export async function deleteRefusal(app: FastifyInstance, id: string): Promise<StallscopeError | null> {
  if (app.externalRuns.isReported(id))
    return new StallscopeError('API_CONFLICT', `run ${id} is running and ${REPORTED}, then delete it`);
  if (app.hub.isActive(id)) return new StallscopeError('API_CONFLICT', `run ${id} is running; cancel it first`);
  if (app.store.ingest.soleWriter) return null;
  const run = await app.store.runReads.get(id);
  if (run?.status !== 'running') return null;
  return new StallscopeError(
    'API_CONFLICT',
    run.source === 'cli'
      ? `run ${id} is running (on another dashboard process of this database) and ${REPORTED}, then delete it`
      : `run ${id} is running on another dashboard process of this database; cancel it there first`,
  );
}

export const abandonRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.post(
    '/api/runs/:id/abandon',
    {
      schema: {
        params: Type.Object({ id: Type.String({ minLength: 1, maxLength: 200 }) }),
        response: {
          200: Type.Object({ id: Type.String(), status: Type.Literal('interrupted') }),
          404: ErrorReplySchema,
          409: ErrorReplySchema,
        },
      },
    },
    async (req) => {
      const { id } = req.params;
      if (await app.externalRuns.abandon(id)) return { id, status: 'interrupted' as const };
      const run = await app.store.runReads.get(id);
      if (!run) throw new StallscopeError('API_NOT_FOUND', `run ${id}`);
      if (app.hub.isActive(id))
        throw new StallscopeError(
          'API_CONFLICT',
          `run ${id} was started by this dashboard, not reported by a CLI: cancel it instead`,
        );
      throw new StallscopeError(
        'API_CONFLICT',
        `run ${id} is not running (${run.status}): there is nothing to abandon`,
      );
    },
  );
};
