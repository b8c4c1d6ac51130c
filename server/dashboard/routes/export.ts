/**
 * GET /api/runs/:id/export?format=vllm|trace|csv|evidence — a download: the
 * vLLM-compatible result JSON, a Chrome Trace Event JSON for Perfetto,
 * per-request CSV, or the evidence file (all of it and the stall reports with
 * their fingerprints, in one JSON: docs/design.md#evidence).
 */
import { Type } from 'typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { StallscopeError } from '../../../shared/errors.ts';
import { buildChromeTrace } from '../export/chromeTrace.ts';
import { requestsCsv } from '../export/csv.ts';
import { buildEvidence } from '../export/evidence.ts';
import { requestTable } from '../export/requestTable.ts';
import { readStoredRun, type StoredRun } from '../export/storedRun.ts';
import { rebuildResult, rowRecords, vllmText } from '../export/vllmJson.ts';
import { withDetailedArrays } from '../runs/detailedResult.ts';
import type { DashboardStore } from '../store/common/storeApi.ts';

/** The run's vLLM result: as stored, else rebuilt with the engine's builder from its summary and rows. */
async function vllmResult(store: DashboardStore, { run, rows }: StoredRun): Promise<Record<string, unknown>> {
  const stored = await store.runReads.result(run.id);
  // A dashboard run stored summary-only (recorded before the engine's records were kept): its arrays from the rows.
  return (
    (stored && run.source === 'dashboard' && rows.length > 0 ? withDetailedArrays(stored, rowRecords(rows)) : stored) ??
    rebuildResult({ ...run, config: run.config as never, summary: run.summary, breakerCause: run.breaker.cause }, rows)
  );
}

const traceOf = ({ run, events, rows }: StoredRun) =>
  buildChromeTrace(
    run.id,
    run.label,
    events.map((e) => e.event),
    rows,
  );

export const exportRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/api/runs/:id/export',
    {
      schema: {
        params: Type.Object({ id: Type.String({ minLength: 1, maxLength: 200 }) }),
        querystring: Type.Object({
          format: Type.Union([
            Type.Literal('vllm'),
            Type.Literal('trace'),
            Type.Literal('csv'),
            Type.Literal('evidence'),
          ]),
        }),
      },
    },
    async (req, reply) => {
      const { id } = req.params;
      const { format } = req.query;
      const r = await readStoredRun(app.store, id);
      if (!r) throw new StallscopeError('API_NOT_FOUND', `run ${id}`);
      const file = (ext: string) => `attachment; filename="stallscope-${id.replace(/[^A-Za-z0-9._-]/g, '_')}.${ext}"`;
      const table = () => requestTable(r.rows, r.model, r.waits);
      if (format === 'csv')
        return reply
          .type('text/csv; charset=utf-8')
          .header('content-disposition', file('csv'))
          .send(requestsCsv(table()));
      if (format === 'trace')
        return reply.type('application/json').header('content-disposition', file('trace.json')).send(traceOf(r));
      if (format === 'evidence') {
        const evidence = buildEvidence(r, {
          table: table(),
          result: await vllmResult(app.store, r),
          trace: traceOf(r),
          exportedAtMs: Date.now(),
        });
        return reply.type('application/json').header('content-disposition', file('evidence.json')).send(evidence);
      }
      return reply
        .type('application/json')
        .header('content-disposition', file('json'))
        .send(vllmText(await vllmResult(app.store, r)));
    },
  );
};
