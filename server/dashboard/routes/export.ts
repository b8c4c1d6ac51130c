/**
 * GET /api/runs/:id/export?format=vllm|trace|csv|evidence — a download: the
 * vLLM-compatible result JSON, a Chrome Trace Event JSON for Perfetto,
 * per-request CSV, or the evidence file (all of it and the stall reports with
 * their fingerprints, in one JSON: docs/design.md#evidence). Every format is
 * streamed (docs/design.md#exports): its per-request parts are written page
 * by page from the stored rows and unsent ranges, with the socket's
 * backpressure, so memory does not grow with the requests a run declared.
 */
import { Readable } from 'node:stream';
import { Type } from 'typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { StallscopeError } from '../../../shared/errors.ts';
import { REQUEST_END_STATUSES } from '../../../shared/types.ts';
import { DETAILED_ARRAYS } from '../../../shared/vllmResult/resultJson.ts';
import { csvLines } from '../export/csv.ts';
import { buildEvidence } from '../export/evidence.ts';
import { boardContext } from '../runs/boardContext.ts';
import { requestTable } from '../export/requestTable.ts';
import { mapPages, rowPages, type RowPages } from '../export/rowPages.ts';
import { readStoredRun, type StoredRun } from '../export/storedRun.ts';
import { jsonArray, pyArray, sentinel, spliced } from '../export/streamText.ts';
import { traceFrame, traceRowPages } from '../export/chromeTrace.ts';
import { PER_REQUEST_KEYS, pageEntries, rebuildFrame, vllmText, withSentinels } from '../export/vllmJson.ts';
import { detailedArraysBefore, withDetailedArrays } from '../runs/detailedResult.ts';
import { RequestPages } from '../store/common/requestPages.ts';
import type { DashboardStore } from '../store/common/storeApi.ts';

/** The run's vLLM result frame (per-request keys as sentinels) and which keys stream from the rows. */
async function vllmFrame(
  store: DashboardStore,
  { run }: StoredRun,
): Promise<{ result: Record<string, unknown>; streamed: readonly string[] }> {
  const pages = new RequestPages(store.kysely);
  const count = async (status?: string) => (await pages.page(run.id, { offset: 0, limit: 0, status })).total;
  const rows = await count();
  const stored = await store.runReads.result(run.id);
  if (stored) {
    // A dashboard run stored summary-only (recorded before the engine's records were kept): its arrays from the rows.
    if (run.source !== 'dashboard' || rows === 0 || detailedArraysBefore(stored) === null)
      return { result: stored, streamed: [] };
    return { result: withSentinels(withDetailedArrays(stored, []), DETAILED_ARRAYS), streamed: DETAILED_ARRAYS };
  }
  let failed = 0;
  for (const s of REQUEST_END_STATUSES) if (s !== 'completed') failed += await count(s);
  const facts = { rows, completed: await count('completed'), failed };
  const result = rebuildFrame(
    { ...run, config: run.config as never, summary: run.summary, breakerCause: run.breaker.cause },
    facts,
  );
  return { result, streamed: PER_REQUEST_KEYS };
}

/** The parts of a result frame, each key's entries page by page, in `array`'s layout. */
function resultParts(
  streamed: readonly string[],
  rows: RowPages,
  array: (key: string, pages: AsyncIterable<unknown[]>) => AsyncIterable<string>,
): Record<string, () => AsyncIterable<string>> {
  return Object.fromEntries(
    streamed.map((k) => [
      k,
      () =>
        array(
          k,
          mapPages(rows, (page) => pageEntries(k as (typeof PER_REQUEST_KEYS)[number], page)),
        ),
    ]),
  );
}

/** The Perfetto trace: its frame around one `traceEvents` array, the rows' tracks streamed after the events'. */
function traceText(
  r: StoredRun,
  rows: RowPages,
): { frame: object; parts: Record<string, () => AsyncIterable<string>> } {
  const t = traceFrame(
    r.run.id,
    r.run.label,
    r.events.map((e) => e.event),
  );
  const frame = { traceEvents: sentinel('traceEvents'), displayTimeUnit: t.displayTimeUnit, metadata: t.metadata };
  return { frame, parts: { traceEvents: () => jsonArray(traceRowPages(t, rows)) } };
}

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
      const rows = rowPages(app.store, id);
      const file = (ext: string) => `attachment; filename="stallscope-${id.replace(/[^A-Za-z0-9._-]/g, '_')}.${ext}"`;
      const stream = (type: string, ext: string, text: AsyncIterable<string>) =>
        reply.type(type).header('content-disposition', file(ext)).send(Readable.from(text));
      const tableRows = () => mapPages(rows, (page) => requestTable(page, r.model, r.waits).rows);
      if (format === 'csv') return stream('text/csv; charset=utf-8', 'csv', csvLines(tableRows()));
      if (format === 'trace') {
        const t = traceText(r, rows);
        return stream('application/json', 'trace.json', spliced(JSON.stringify(t.frame), t.parts));
      }
      const vllm = await vllmFrame(app.store, r);
      if (format === 'evidence') {
        const t = traceText(r, rows);
        const evidence = buildEvidence(r, {
          table: { columns: requestTable([], r.model, r.waits).columns, rows: sentinel('tableRows') as never },
          result: vllm.result,
          trace: t.frame,
          exportedAtMs: Date.now(),
          board: await boardContext(app.store, r.run),
        });
        return stream(
          'application/json',
          'evidence.json',
          spliced(JSON.stringify(evidence), {
            ...resultParts(vllm.streamed, rows, (_k, pages) => jsonArray(pages)),
            ...t.parts,
            tableRows: () => jsonArray(tableRows()),
          }),
        );
      }
      return stream(
        'application/json',
        'json',
        spliced(vllmText(vllm.result), resultParts(vllm.streamed, rows, pyArray)),
      );
    },
  );
};
