/**
 * Text and numbers no database can store (U+0000, an unpaired surrogate, a number beyond the column) are refused
 * with a 400 naming the field, before anything is stored — on both stores: the in-memory SQLite store and a real
 * PostgreSQL 15 (where each of them was a 500, or a writer batch dropped). After every refusal the run list, the
 * run's events and its stall reports are what they were.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance, InjectOptions } from 'fastify';
import { buildApp } from '#server/dashboard/app.ts';
import type { RunStarter } from '#server/dashboard/runs/types.ts';
import { startPostgres, type PgCluster } from '#test/helpers/postgres.ts';
import { hangRunEvents, stallReport } from '#test/helpers/sampleEvents.ts';

let cluster: PgCluster | undefined;
beforeAll(async () => {
  cluster = await startPostgres();
});
afterAll(() => cluster?.destroy());

/** A run manager that records what it was asked to start and starts nothing. */
function recordingManager(): RunStarter & { started: number } {
  return {
    started: 0,
    async start() {
      this.started++;
      return { id: 'never', warnings: [] };
    },
    cancel: () => false,
    async shutdown() {},
  };
}

const stores = [
  { name: 'SQLite', database: async () => null },
  { name: 'PostgreSQL', database: async () => cluster!.freshDatabase() },
];

const NUL = 'a\u0000b';
const NDJSON = { 'content-type': 'application/x-ndjson' };
const LONE = 'a\ud800b';

describe.each(stores)('$name: non-storable input', ({ database }) => {
  let app: FastifyInstance;
  const manager = recordingManager();
  const RUN = 'ci-1';

  beforeAll(async () => {
    app = await buildApp({
      dataDir: null,
      database: await database(),
      store: { flushIntervalMs: 10 },
      ws: { batchMs: 10 },
      runManager: () => manager,
    });
    await app.ready();
    const created = await app.inject({
      method: 'POST',
      url: '/api/runs/external',
      payload: { runId: RUN, config: { model: 'm' }, metadata: { build: '1' } },
    });
    expect(created.statusCode).toBe(201);
    // Started, one request done and the watchdog's stall report: what every refusal below must leave as it is.
    const events = hangRunEvents(RUN)
      .filter((e) => e.type !== 'telemetry')
      .slice(0, 5);
    expect((await app.inject({ method: 'POST', url: `/api/runs/${RUN}/events`, payload: { events } })).statusCode).toBe(
      200,
    );
    const line = JSON.stringify({ v: 1, ts: 1, type: 'watchdog.stall', report: stallReport(RUN, 1) });
    const ok = await app.inject({ method: 'POST', url: `/api/ingest?runId=${RUN}`, headers: NDJSON, payload: line });
    expect(ok.json(), ok.body).toMatchObject({ accepted: 1 });
    await app.store.ingest.flush();
  });
  afterAll(() => app?.close());

  /** What the store holds: the run list, the run's events and its stall reports, as a client reads them. */
  async function stored(): Promise<unknown> {
    await app.store.ingest.flush();
    const list = (await app.inject({ url: '/api/runs?limit=500' })).json();
    const events = (await app.inject({ url: `/api/runs/${RUN}/events` })).json();
    const detail = (await app.inject({ url: `/api/runs/${RUN}` })).json();
    return { ids: list.runs.map((r: { id: string }) => r.id), total: list.total, events, stalls: detail.stallReports };
  }

  async function expectRefused(req: InjectOptions, field: string, reason: RegExp): Promise<void> {
    const before = await stored();
    const res = await app.inject(req);
    expect(res.statusCode, res.body).toBe(400);
    expect(res.json().field).toBe(field);
    expect(res.json().message).toMatch(reason);
    expect(await stored()).toEqual(before);
  }

  const nul = /U\+0000/;
  const surrogate = /unpaired UTF-16 surrogate/;

  it('a reported run whose label, metadata or configured model holds NUL is refused, naming the field', async () => {
    const create = (payload: object) => ({ method: 'POST' as const, url: '/api/runs/external', payload });
    await expectRefused(create({ runId: 'ci-2', label: NUL }), 'label', nul);
    await expectRefused(create({ runId: 'ci-2', metadata: { build: NUL } }), 'metadata.build', nul);
    await expectRefused(create({ runId: 'ci-2', metadata: { [NUL]: 'x' } }), 'metadata.a\\u0000b', nul);
    await expectRefused(create({ runId: 'ci-2', config: { model: NUL } }), 'config.model', nul);
    await expectRefused(create({ runId: 'ci-2', label: LONE }), 'label', surrogate);
    // num_prompts and max_concurrency columns are INTEGERs.
    await expectRefused(create({ runId: 'ci-2', config: { numPrompts: 1e20 } }), 'config.numPrompts', /must be/);
    await expectRefused(
      create({ runId: 'ci-2', config: { maxConcurrency: 2 ** 31 } }),
      'config.maxConcurrency',
      /must be/,
    );
  });

  it('a dashboard run whose spec holds NUL is refused before the run manager sees it', async () => {
    const res = await app.inject({
      method: 'POST',
      url: '/api/runs',
      // Valid but for the label: without the check the run manager would be asked to start it.
      payload: {
        target: { kind: 'embedded', watchdogTimeoutS: 500 },
        dataset: { name: 'random' },
        timeouts: { totalS: 900 },
        label: NUL,
      },
    });
    expect(res.statusCode, res.body).toBe(400);
    expect(res.json().field).toBe('label');
    expect(manager.started).toBe(0);
  });

  it('a reported batch with a NUL anywhere is refused whole, naming events.N.<field>', async () => {
    const post = (events: unknown[]) => ({
      method: 'POST' as const,
      url: `/api/runs/${RUN}/events`,
      payload: { events },
    });
    const queued = { type: 'request.queued', t: 10, index: 2, requestId: `${RUN}-2` };
    const warning = { type: 'run.warning', t: 11, message: NUL };
    await expectRefused(post([queued, warning]), 'events.1.message', nul);
    await expectRefused(post([queued, { ...queued, requestId: LONE }]), 'events.1.requestId', surrogate);
  });

  it('a telemetry line holding NUL (a stall report phase) or a worker id beyond INTEGER is rejected alone', async () => {
    const before = await stored();
    const bad = { v: 1, ts: 2, type: 'watchdog.stall', report: { ...stallReport(RUN, 2), phase: NUL } };
    const huge = { v: 1, ts: 2, type: 'watchdog.stall', report: { ...stallReport(RUN, 3), workerId: 2 ** 40 } };
    const res = await app.inject({
      method: 'POST',
      url: `/api/ingest?runId=${RUN}`,
      headers: NDJSON,
      payload: `${JSON.stringify(bad)}\n${JSON.stringify(huge)}\n`,
    });
    expect(res.statusCode).toBe(200);
    const reply = res.json();
    expect(reply).toMatchObject({ accepted: 0, rejected: 2 });
    expect(reply.errors[0]).toMatchObject({ line: 1 });
    expect(reply.errors[0].message).toMatch(/report\.phase holds U\+0000/);
    expect(reply.errors[1]).toMatchObject({ line: 2 });
    expect(reply.errors[1].message).toMatch(/report\.workerId/);
    expect(await stored()).toEqual(before);
  });

  it('query text and run ids holding NUL are refused, naming the parameter', async () => {
    await expectRefused({ url: '/api/runs?q=a%00b' }, 'q', nul);
    await expectRefused({ url: '/api/runs?metadata=build%3D%00' }, 'metadata', nul);
    await expectRefused({ url: '/api/stalls?metadata=build%3D%00' }, 'metadata', nul);
    await expectRefused({ url: '/api/runs/ci%001' }, 'id', nul);
    await expectRefused({ url: '/api/runs/ci%001/events' }, 'id', nul);
    await expectRefused({ method: 'DELETE', url: '/api/runs/ci%001' }, 'id', nul);
    await expectRefused(
      { method: 'POST', url: '/api/ingest?runId=a%00b', headers: NDJSON, payload: '{}' },
      'runId',
      nul,
    );
  });

  it('numbers beyond their column are refused, naming the parameter', async () => {
    const tooBig = /must be|is neither|beyond/;
    await expectRefused({ url: '/api/runs?since=10000000000000000000000' }, 'since', tooBig);
    await expectRefused({ url: '/api/stalls?until=10000000000000000000000' }, 'until', tooBig);
    await expectRefused({ url: '/api/runs?offset=100000000000000000000' }, 'offset', tooBig);
    await expectRefused({ url: `/api/runs/${RUN}/events?after=100000000000000000000` }, 'after', tooBig);
    await expectRefused({ url: `/api/runs/${RUN}/requests?offset=100000000000000000000` }, 'offset', tooBig);
  });

  it('an import whose num_prompts is 1e309 or whose model holds NUL is refused and stores no run', async () => {
    const file = (o: Record<string, unknown>) =>
      JSON.stringify({ date: '20260401-184218', completed: 1, duration: 2, backend: 'openai-chat-omni', ...o });
    const post = (text: string) => ({
      method: 'POST' as const,
      url: '/api/import',
      headers: { 'content-type': 'application/json' },
      payload: text,
    });
    await expectRefused(
      post(file({ num_prompts: 1 }).replace('"num_prompts":1', '"num_prompts":1e309')),
      'num_prompts',
      /num_prompts/,
    );
    await expectRefused(post(file({ max_concurrency: 2 ** 40 })), 'max_concurrency', /max_concurrency/);
    await expectRefused(post(file({ model_id: NUL })), 'model_id', nul);
    await expectRefused(post(file({ ci_build: NUL })), 'ci_build', nul);
    const named = { ...post(file({})), headers: { 'content-type': 'application/json', 'x-filename': 'r%00.json' } };
    await expectRefused(named, 'x-filename', nul);
  });
});
