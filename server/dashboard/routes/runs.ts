/**
 * /api/runs: start, list, read, cancel and delete runs. Reads come from the
 * store (live runs' rows are updated with every batch); the live state of a
 * running run is added from the hub.
 */
import { Type } from 'typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { StallscopeError } from '../../../shared/errors.ts';
import {
  checkRunSpec,
  pointerToField,
  RunSpecSchema,
  withRunSpecDefaults,
  type RunSpec,
} from '../../../shared/config/runSpec.ts';
import { findUnstorable, INT4_MAX } from '../../../shared/storage/storable.ts';
import {
  ErrorReplySchema,
  EventsReplySchema,
  RequestsReplySchema,
  RequestStatusSchema,
  RunDetailSchema,
  RunListReplySchema,
  StartRunReplySchema,
} from '../../../shared/protocol/apiSchemas.ts';
import { SpecError } from '../plugins/errors.ts';
import { redactConfig, redactSpec, redactUrl } from '../runs/redact.ts';
import { sendJsonText } from './jsonText.ts';
import { MetadataParam, metadataPairs, TimeParam, timeParam } from './query.ts';
import { interruptCauseOf } from '../export/storedRun.ts';
import { cancelRefusal, deleteRefusal } from './abandon.ts';

const IdParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 200 }) });
const Errors = { 400: ErrorReplySchema, 404: ErrorReplySchema, 409: ErrorReplySchema };

const ListQuery = Type.Object({
  verdict: Type.Optional(Type.String({ maxLength: 32 })),
  status: Type.Optional(Type.String({ maxLength: 32 })),
  source: Type.Optional(Type.String({ maxLength: 32 })),
  /** Free text: id, label, model, target, metadata. */
  q: Type.Optional(Type.String({ maxLength: 200 })),
  metadata: MetadataParam,
  /** Happened at or after / before (the run's start, an import's file date). */
  since: TimeParam,
  until: TimeParam,
  limit: Type.Integer({ minimum: 1, maximum: 500, default: 50 }),
  /** Bounded as the databases' OFFSET takes it (beyond, PostgreSQL failed the query). */
  offset: Type.Integer({ minimum: 0, maximum: INT4_MAX, default: 0 }),
});

type App = Parameters<FastifyPluginAsyncTypebox>[0];

export const runRoutes: FastifyPluginAsyncTypebox = async (app) => {
  runReadRoutes(app);
  runStreamRoutes(app);
  runControlRoutes(app);
};

/** The list of runs and one run's detail, live state included. */
function runReadRoutes(app: App): void {
  app.get(
    '/api/runs',
    { schema: { querystring: ListQuery, response: { 200: RunListReplySchema, 400: ErrorReplySchema } } },
    async (req) => {
      const q = req.query;
      const page = await app.store.runReads.list({
        verdict: q.verdict,
        status: q.status,
        source: q.source,
        text: q.q,
        metadata: metadataPairs(q.metadata),
        since: timeParam(q.since, 'since'),
        until: timeParam(q.until, 'until'),
        limit: q.limit,
        offset: q.offset,
      });
      // Rows stored before URLs were redacted on the way in are redacted on the way out.
      return { ...page, runs: page.runs.map((r) => ({ ...r, target: redactUrl(r.target) })) };
    },
  );

  app.get(
    '/api/runs/:id',
    { schema: { params: IdParams, response: { 200: RunDetailSchema, ...Errors } } },
    async (req) => {
      const { id } = req.params;
      const run = await app.store.runReads.get(id);
      if (!run) throw new StallscopeError('API_NOT_FOUND', `run ${id}`);
      const live = app.hub.tracker(id)?.state;
      const { state: stored, ...rest } = run;
      const kept = await app.store.retention.retentionFacts(id);
      return {
        ...rest,
        target: redactUrl(rest.target),
        spec: redactSpec(rest.spec),
        config: redactConfig(rest.config),
        ...(live
          ? {
              counts: live.counts,
              breaker: live.breaker,
              lastSeq: live.seq,
              status: live.status,
              startedAtMs: live.startedAtMs ?? run.startedAtMs,
            }
          : {}),
        stallReports: await app.store.runReads.stallReports(id),
        interruptCause: interruptCauseOf(run.summary, live ?? stored),
        active: live !== undefined,
        pinned: kept?.pinned ?? false,
        prunedAtMs: kept?.prunedAtMs ?? null,
      };
    },
  );
}

/** A run's request rows and events, spliced in as stored. */
function runStreamRoutes(app: App): void {
  app.get(
    '/api/runs/:id/requests',
    {
      schema: {
        params: IdParams,
        querystring: Type.Object({
          /** Compared with the INTEGER request index. */
          offset: Type.Integer({ minimum: 0, maximum: INT4_MAX, default: 0 }),
          limit: Type.Integer({ minimum: 1, maximum: 20_000, default: 1000 }),
          /** Only requests in this state (`total` counts those). */
          status: Type.Optional(RequestStatusSchema),
        }),
        response: { 200: RequestsReplySchema, ...Errors },
      },
    },
    async (req, reply) => {
      const { id } = req.params;
      const { offset, limit, status } = req.query;
      if (!(await app.store.runReads.exists(id))) throw new StallscopeError('API_NOT_FOUND', `run ${id}`);
      await app.store.ingest.flush(); // a live run's ended requests may still be queued
      // Rows are stored as serialized RequestRows: splice them in (a 10,000-row run loads without re-encoding);
      // an unsent range's are synthesised for this page only (docs/design.md#bulk-unsent).
      const { total, json } = await app.store.runReads.requestsJson(id, offset, limit, status);
      return sendJsonText(reply, `{"total":${total},"requests":[${json.join(',')}]}`);
    },
  );

  app.get(
    '/api/runs/:id/events',
    {
      schema: {
        params: IdParams,
        querystring: Type.Object({
          /** Compared with the BIGINT seq: a JavaScript number beyond 2^53 is not the integer it was written as. */
          after: Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER, default: 0 }),
          limit: Type.Integer({ minimum: 1, maximum: 50_000, default: 10_000 }),
        }),
        response: { 200: EventsReplySchema, ...Errors },
      },
    },
    async (req, reply) => {
      const { id } = req.params;
      const { after, limit } = req.query;
      const head = await app.hub.headSeq(id);
      if (head === null) throw new StallscopeError('API_NOT_FOUND', `run ${id}`);
      const events = await app.hub.readAfter(id, after, limit);
      const last = events.length ? events[events.length - 1].seq : after;
      // A pruned run numbered more events than it keeps: none are left to ask for (docs/design.md#retention).
      const gone = events.length === 0 && (await app.store.retention.retentionFacts(id))?.prunedAtMs != null;
      // Events are stored serialized; splice them in rather than parse and re-encode.
      const body = `{"events":[${events.map((e) => `{"seq":${e.seq},"event":${e.json}}`).join(',')}],"lastSeq":${last},"more":${!gone && last < head}}`;
      return sendJsonText(reply, body);
    },
  );
}

/** Starting, cancelling and deleting a run. */
function runControlRoutes(app: App): void {
  app.post(
    '/api/runs',
    {
      schema: { body: RunSpecSchema, response: { 201: StartRunReplySchema, 400: ErrorReplySchema } },
      attachValidation: true,
    },
    async (req, reply) => {
      // Our own validation (not Fastify's) so the 400 names each field the way the form does.
      // What no database can store (shared/storable.ts) is refused here too: this route reads its own validation.
      const bad = findUnstorable(req.body);
      if (bad) throw new SpecError([{ field: pointerToField(bad.pointer), message: bad.message, severity: 'error' }]);
      const spec = withRunSpecDefaults(req.body) as RunSpec;
      // Checked as the run configuration it is built into, once: the run manager runs that same object.
      const { issues, config } = checkRunSpec(spec);
      const errors = issues.filter((i) => i.severity === 'error');
      // The reply's code is the first error's own (the memory budget has one), CONFIG_INVALID otherwise.
      if (errors.length || !config) throw new SpecError(issues);
      const started = await app.runManager.start(spec, config);
      return reply.status(201).send({ id: started.id, warnings: [...issues, ...started.warnings] });
    },
  );

  app.post(
    '/api/runs/:id/cancel',
    { schema: { params: IdParams, response: { 202: Type.Object({ id: Type.String() }), ...Errors } } },
    async (req, reply) => {
      const { id } = req.params;
      if (!(await app.store.runReads.exists(id))) throw new StallscopeError('API_NOT_FOUND', `run ${id}`);
      if (!app.runManager.cancel(id)) throw await cancelRefusal(app, id);
      return reply.status(202).send({ id });
    },
  );

  app.delete(
    '/api/runs/:id',
    { schema: { params: IdParams, response: { 200: Type.Object({ id: Type.String() }), ...Errors } } },
    async (req) => {
      const { id } = req.params;
      const refusal = await deleteRefusal(app, id);
      if (refusal) throw refusal;
      if (!(await app.store.runWrites.delete(id))) throw new StallscopeError('API_NOT_FOUND', `run ${id}`);
      app.hub.removed(id);
      return { id };
    },
  );
}
