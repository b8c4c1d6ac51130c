/**
 * GET /api/runs/:id/export?format=vllm|trace|csv — a download: the
 * vLLM-compatible result JSON, a Chrome Trace Event JSON for Perfetto, or
 * per-request CSV.
 */
import { Type } from 'typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { StallscopeError } from '../../../shared/errors.ts';
import type { RunEvent } from '../../../shared/protocol.ts';
import { buildChromeTrace } from '../export/chromeTrace.ts';
import { requestsCsv } from '../export/csv.ts';
import { rebuildResult, rowRecords, vllmText } from '../export/vllmJson.ts';
import { withDetailedArrays } from '../runs/detailedResult.ts';

const MAX_ROWS = 1_000_000;

export const exportRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/api/runs/:id/export',
    {
      schema: {
        params: Type.Object({ id: Type.String({ minLength: 1, maxLength: 200 }) }),
        querystring: Type.Object({
          format: Type.Union([Type.Literal('vllm'), Type.Literal('trace'), Type.Literal('csv')]),
        }),
      },
    },
    async (req, reply) => {
      const { id } = req.params;
      const { format } = req.query;
      const run = app.store.runs.get(id);
      if (!run) throw new StallscopeError('API_NOT_FOUND', `run ${id}`);
      app.store.writer.flush();
      const rows = app.store.runs.requests(id, 0, MAX_ROWS).requests;
      const file = (ext: string) => `attachment; filename="stallscope-${id.replace(/[^A-Za-z0-9._-]/g, '_')}.${ext}"`;
      if (format === 'csv') {
        return reply.type('text/csv; charset=utf-8').header('content-disposition', file('csv')).send(requestsCsv(rows));
      }
      if (format === 'trace') {
        const events = app.store.runs.eventsAfter(id, 0, 10_000_000).map((e) => JSON.parse(e.json) as RunEvent);
        return reply
          .type('application/json')
          .header('content-disposition', file('trace.json'))
          .send(buildChromeTrace(id, run.label, events, rows));
      }
      const stored = app.store.runs.result(id);
      // A dashboard run stored summary-only (recorded before the engine's records were kept): its arrays from the rows.
      const result =
        (stored && run.source === 'dashboard' && rows.length > 0
          ? withDetailedArrays(stored, rowRecords(rows))
          : stored) ??
        rebuildResult(
          {
            ...run,
            config: run.config as never,
            summary: run.summary,
            breakerCause: run.breaker.cause,
          },
          rows,
        );
      return reply.type('application/json').header('content-disposition', file('json')).send(vllmText(result));
    },
  );
};
