/**
 * POST /api/ingest: telemetry as NDJSON (one shared/protocol/telemetry.ts event per
 * line) from the embedded repro server, a real vLLM-Omni server or a CI job.
 * Each line is validated on its own against the telemetry schema: good ones
 * are appended to their run's stream (joined by `?runId=` or by the
 * `x-request-id`s they carry), bad ones are counted and reported back with
 * their line numbers; nothing good is lost because of a bad neighbour.
 * `?runId=` naming a stored run that has already ended appends to that run's
 * stored events (late telemetry). A large body is worked through in slices of
 * a few milliseconds with the event loop free in between, so 16 MB of lines
 * never stall other requests or the live stream. The reply is sent only after
 * every good event is in the hub, so a target's flush acknowledges delivery.
 */
import { setImmediate as yieldToLoop } from 'node:timers/promises';
import { Type } from 'typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { IngestReplySchema, ErrorReplySchema, type IngestReply } from '../../../shared/protocol/apiSchemas.ts';
import type { TelemetryEvent } from '../../../shared/protocol/telemetry.ts';
import { checkTelemetry } from '../runs/eventChecks.ts';
import { joinTelemetry } from '../runs/telemetryJoin.ts';
import { StallscopeError } from '../../../shared/errors.ts';

export const INGEST_BODY_LIMIT = 16 * 1024 * 1024;
const MAX_REPORTED_ERRORS = 20;
/** Work on a body for at most this long before letting other requests run. */
const SLICE_MS = 8;

export const ingestRoutes: FastifyPluginAsyncTypebox = async (app) => {
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
        response: { 200: IngestReplySchema, 400: ErrorReplySchema, 503: ErrorReplySchema },
      },
    },
    async (req) => {
      const { runId } = req.query;
      const text = req.body;
      // The outage buffer is full: refuse the whole body so the sender keeps it (docs/design.md#outage-buffer).
      if (!app.store.ingest.hasRoom(1))
        throw new StallscopeError('STORE_UNAVAILABLE', 'the database is unreachable and the outage buffer is full');
      const reply: IngestReply = { accepted: 0, rejected: 0, unjoined: 0, errors: [] };
      const reject = (line: number, message: string) => {
        reply.rejected++;
        if (reply.errors.length < MAX_REPORTED_ERRORS) reply.errors.push({ line, message });
      };
      /** Good events of this slice, per destination run, in line order. */
      let pending = new Map<string, TelemetryEvent[]>();
      const deliver = async () => {
        for (const [dest, events] of pending) {
          if ((await app.hub.appendTelemetryBatch(dest, events)) !== null) reply.accepted += events.length;
          else reply.unjoined += events.length;
        }
        pending = new Map();
      };
      let live = app.hub.activeIds();
      let sliceStart = performance.now();
      let lineNo = 0;
      for (let pos = 0; pos <= text.length;) {
        let end = text.indexOf('\n', pos);
        if (end < 0) end = text.length;
        const line = text.slice(pos, end).trim();
        pos = end + 1;
        lineNo++;
        if (line) {
          if (line[0] !== '{') reject(lineNo, 'not a JSON object');
          else {
            let value: unknown;
            try {
              value = JSON.parse(line);
            } catch (e) {
              reject(lineNo, `invalid JSON: ${(e as Error).message}`);
              value = undefined;
            }
            if (value !== undefined) {
              const checked = checkTelemetry(value);
              if (!checked.ok) reject(lineNo, checked.message);
              else {
                // A live run it joins; else a ?runId= naming a stored run that has ended: kept with that run, not lost.
                const dest = joinTelemetry(checked.event, live, runId, (rid) => app.hub.runOfRequest(rid)) ?? runId;
                if (dest === undefined) reply.unjoined++;
                else {
                  const list = pending.get(dest);
                  if (list) list.push(checked.event);
                  else pending.set(dest, [checked.event]);
                }
              }
            }
          }
        }
        if ((lineNo & 127) === 0 && performance.now() - sliceStart > SLICE_MS) {
          await deliver();
          await yieldToLoop();
          live = app.hub.activeIds(); // runs may have started or ended meanwhile
          sliceStart = performance.now();
        }
      }
      await deliver();
      return reply;
    },
  );
};
