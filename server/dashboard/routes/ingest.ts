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
import { TimeSlice } from '../../common/timeSlice.ts';
import { Type } from 'typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { IngestReplySchema, ErrorReplySchema, type IngestReply } from '../../../shared/protocol/apiSchemas.ts';
import type { TelemetryEvent } from '../../../shared/protocol/telemetry.ts';
import { checkTelemetry } from '../runs/eventChecks.ts';
import { joinTelemetry, requestIdsOf } from '../runs/telemetryJoin.ts';
import { StallscopeError } from '../../../shared/errors.ts';
import { redactSecretsDeep } from '../../../shared/redact.ts';

export const INGEST_BODY_LIMIT = 16 * 1024 * 1024;
const MAX_REPORTED_ERRORS = 20;
/** The longest telemetry line parsed (2 MiB): docs/design.md#peer-bounds. */
export const MAX_LINE_CHARS = 2 * 1024 * 1024;

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
        response: { 200: IngestReplySchema, 400: ErrorReplySchema, 413: ErrorReplySchema, 503: ErrorReplySchema },
      },
    },
    async (req) => {
      const { runId } = req.query;
      const text = req.body;
      // The outage buffer cannot take every event of the body: refuse it whole so the sender keeps it
      // (docs/design.md#outage-buffer). Each line is at most one event; a body that could never fit is a 413.
      const lines = countLines(text);
      const { capacity } = app.store.ingest.health();
      if (capacity > 0 && lines > capacity)
        throw new StallscopeError(
          'API_PAYLOAD_TOO_LARGE',
          `${lines} lines in one body, more than the outage buffer's ${capacity} events: send them in smaller bodies`,
        );
      if (!app.store.ingest.hasRoom(lines))
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
      /** Whether the caller may write into each destination run (a report token: only the runs it created). */
      const mayWrite = new Map<string, string | null>();
      const refusalFor = async (dest: string): Promise<string | null> => {
        let refusal = mayWrite.get(dest);
        if (refusal === undefined) {
          refusal = await app.tokens.checkReporter(dest, req.caller!).then(
            () => null,
            (e: unknown) => (e as Error).message,
          );
          mayWrite.set(dest, refusal);
        }
        return refusal;
      };
      let live = app.hub.activeIds();
      let elsewhere: string[] | null = null;
      // Work on a body a few ms at a time before letting other requests run.
      const slice = new TimeSlice(8, 128);
      let lineNo = 0;
      for (let pos = 0; pos <= text.length;) {
        let end = text.indexOf('\n', pos);
        if (end < 0) end = text.length;
        const line = text.slice(pos, end).trim();
        pos = end + 1;
        lineNo++;
        const checked = line ? parseLine(line) : null;
        if (checked && !checked.ok) reject(lineNo, checked.message);
        else if (checked) {
          const e = checked.event;
          const bySent = (rid: string) => app.hub.runOfRequest(rid);
          // A live run here; else a run another dashboard process of the database holds; else a ?runId= naming a
          // stored run that has ended: kept with that run, not lost.
          let dest = joinTelemetry(e, live, runId, bySent);
          if (dest === null && runId === undefined && requestIdsOf(e).length) {
            elsewhere ??= await app.hub.runningElsewhere();
            dest = joinTelemetry(e, elsewhere, undefined);
          }
          dest ??= runId ?? null;
          const refusal = dest === null || req.caller === undefined ? null : await refusalFor(dest);
          if (dest === null) reply.unjoined++;
          else if (refusal !== null) reject(lineNo, refusal);
          else {
            const list = pending.get(dest);
            if (list) list.push(e);
            else pending.set(dest, [e]);
          }
        }
        if (slice.due()) {
          await deliver();
          await slice.pause();
          live = app.hub.activeIds(); // runs may have started or ended meanwhile
          elsewhere = null;
        }
      }
      await deliver();
      if (reply.unjoined) noteUnjoined(app.hub.unjoined, reply.unjoined, runId);
      return reply;
    },
  );
};

/**
 * Lines of a body holding more than ASCII blanks: an upper bound on its events. No substring is made (a line's
 * first character is usually its `{`): this pass runs before the body is read for real.
 */
export function countLines(text: string): number {
  let n = 0;
  for (let pos = 0; pos < text.length;) {
    let end = text.indexOf('\n', pos);
    if (end < 0) end = text.length;
    let k = pos;
    while (k < end && text.charCodeAt(k) <= 32) k++;
    if (k < end) n++;
    pos = end + 1;
  }
  return n;
}

function parseLine(line: string): { ok: true; event: TelemetryEvent } | { ok: false; message: string } {
  if (line[0] !== '{') return { ok: false, message: 'not a JSON object' };
  // Refused unparsed: the largest event the schemas allow (a stall report of 1,000 frames of 512-character names)
  // is well under it, and parsing a 16 MB line held the loop ~157 ms.
  if (line.length > MAX_LINE_CHARS)
    return { ok: false, message: `a line of ${line.length} characters, longer than ${MAX_LINE_CHARS}: not parsed` };
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch (e) {
    return { ok: false, message: `invalid JSON: ${(e as Error).message}` };
  }
  const checked = checkTelemetry(value);
  // A server's secrets (a URL's user:password@, a token= parameter in a stack's text) never reach the store.
  return checked.ok ? { ok: true, event: redactSecretsDeep(checked.event) } : { ok: false, message: checked.message };
}

/** Telemetry that joined no run is counted (/api/health, /metrics) and said on stderr, at most once a minute. */
function noteUnjoined(count: { events: number; lastAtMs: number }, n: number, runId: string | undefined): void {
  const now = Date.now();
  const quiet = now - count.lastAtMs < 60_000;
  count.events += n;
  count.lastAtMs = now;
  if (quiet) return;
  process.stderr.write(
    `stallscope: ${n} telemetry event${n === 1 ? '' : 's'} joined no run (${
      runId === undefined ? 'no ?runId= and no request id of a running run' : `run ${runId} does not exist`
    }); ${count.events} so far (GET /api/health: telemetry.unjoined)\n`,
  );
}
