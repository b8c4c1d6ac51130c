/**
 * POST /api/ingest: telemetry as NDJSON (one shared/telemetry.ts event per
 * line) from the embedded target, a real vLLM-Omni server or a CI job.
 * Each line is validated on its own: good ones are appended to their run's
 * stream (joined by `?runId=` or by the `x-request-id`s they carry), bad ones
 * are counted and reported back with their line numbers; nothing good is lost
 * because of a bad neighbour. `?runId=` naming a stored run that has already
 * ended appends to that run's stored events (late telemetry). The reply is sent only after every good event
 * is in the hub, so a target's flush acknowledges delivery.
 */
import { Type } from 'typebox';
import type { FastifyInstance } from 'fastify';
import { IngestReplySchema, ErrorReplySchema, type IngestReply } from '../../shared/apiSchemas.ts';
import { checkTelemetry } from '../runs/eventChecks.ts';
import { joinTelemetry } from '../runs/telemetryJoin.ts';

export const INGEST_BODY_LIMIT = 16 * 1024 * 1024;
const MAX_REPORTED_ERRORS = 20;

export async function ingestRoutes(app: FastifyInstance): Promise<void> {
  app.removeContentTypeParser(['application/json', 'text/plain']);
  app.addContentTypeParser(
    ['application/x-ndjson', 'application/jsonl', 'application/json', 'text/plain'],
    { parseAs: 'string', bodyLimit: INGEST_BODY_LIMIT },
    (_req, body, done) => done(null, body),
  );
  app.post(
    '/api/ingest',
    {
      bodyLimit: INGEST_BODY_LIMIT,
      schema: {
        querystring: Type.Object({ runId: Type.Optional(Type.String({ maxLength: 200 })) }),
        body: Type.String(),
        response: { 200: IngestReplySchema, 400: ErrorReplySchema },
      },
    },
    async (req) => {
      const { runId } = req.query as { runId?: string };
      const text = req.body as string;
      const reply: IngestReply = { accepted: 0, rejected: 0, unjoined: 0, errors: [] };
      const live = app.hub.activeIds();
      const lines = text.split('\n');
      for (let i = 0; i < lines.length; i++) {
        const line = lines[i].trim();
        if (!line) continue;
        let value: unknown;
        try {
          value = JSON.parse(line);
        } catch (e) {
          reply.rejected++;
          if (reply.errors.length < MAX_REPORTED_ERRORS)
            reply.errors.push({ line: i + 1, message: `invalid JSON: ${(e as Error).message}` });
          continue;
        }
        const checked = checkTelemetry(value);
        if (!checked.ok) {
          reply.rejected++;
          if (reply.errors.length < MAX_REPORTED_ERRORS) reply.errors.push({ line: i + 1, message: checked.message });
          continue;
        }
        // A live run it joins; else a ?runId= naming a stored run that has ended: kept with that run, not lost.
        const dest = joinTelemetry(checked.event, live, runId, (rid) => app.hub.runOfRequest(rid)) ?? runId;
        if (dest !== undefined && app.hub.appendTelemetry(dest, checked.event) !== null) reply.accepted++;
        else reply.unjoined++;
      }
      return reply;
    },
  );
}
