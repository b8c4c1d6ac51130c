import { afterEach, describe, expect } from 'vitest';
import { sqliteOf } from '#test/helpers/sqliteStore.ts';
import { test as it } from '#test/helpers/fixtures.ts';
import type { FastifyInstance } from 'fastify';
import type { WebSocket } from 'ws';
import { PROTOCOL_VERSION, type ServerMessage } from '#shared/protocol/protocol.ts';
import { recordRun } from '#test/helpers/dashboardApp.ts';
import { completedRequest, hangRunEvents, newRun } from '#test/helpers/sampleEvents.ts';

const sockets: WebSocket[] = [];
afterEach(async () => {
  for (const s of sockets.splice(0)) s.terminate();
});

function collect(ws: WebSocket) {
  const msgs: ServerMessage[] = [];
  ws.on('message', (d) => msgs.push(JSON.parse(String(d))));
  const until = async (pred: (m: ServerMessage[]) => boolean, ms = 2000) => {
    const end = Date.now() + ms;
    while (!pred(msgs)) {
      if (Date.now() > end) throw new Error(`timed out; got ${JSON.stringify(msgs.map((m) => m.type))}`);
      await new Promise((r) => setTimeout(r, 5));
    }
    return msgs;
  };
  return { msgs, until };
}

/** Opens /ws; the collector is attached before the upgrade completes (hello is sent at once). */
async function open(app: FastifyInstance, headers: Record<string, string> = {}) {
  let c!: ReturnType<typeof collect>;
  const ws = (await app.injectWS(
    '/ws',
    { headers: { host: '127.0.0.1:7077', ...headers } },
    {
      onInit: (w: unknown) => {
        c = collect(w as WebSocket);
      },
    },
  )) as unknown as WebSocket;
  sockets.push(ws);
  return { ws, c };
}

describe('/ws', () => {
  it('sends hello and a snapshot of live runs, then numbered deltas after subscribe', async ({ app }) => {
    sqliteOf(app.store).runs.insertRun(newRun('live-1'));
    app.hub.open('live-1', 'L');
    for (const e of completedRequest('live-1', 0)) app.hub.append('live-1', e);
    const { ws, c } = await open(app);
    await c.until((m) => m.length >= 2);
    expect(c.msgs[0]).toEqual({ type: 'hello', v: PROTOCOL_VERSION });
    expect(c.msgs[1]).toMatchObject({
      type: 'snapshot',
      runs: [{ runId: 'live-1', seq: 4, counts: { completed: 1 } }],
    });
    ws.send(JSON.stringify({ type: 'subscribe', runId: 'live-1', afterSeq: 2 }));
    await c.until((m) => m.some((x) => x.type === 'deltas'));
    for (const e of completedRequest('live-1', 1)) app.hub.append('live-1', e);
    await c.until(
      (m) => m.filter((x) => x.type === 'deltas').flatMap((x) => (x.type === 'deltas' ? x.events : [])).length === 6,
    );
    const seqs = c.msgs.flatMap((x) => (x.type === 'deltas' ? x.events.map((e) => e.seq) : []));
    expect(seqs).toEqual([3, 4, 5, 6, 7, 8]);
  });

  it('replays a stored run from the store to a subscriber', async ({ app }) => {
    recordRun(app.hub, 'done-1');
    const { ws, c } = await open(app);
    await c.until((m) => m.length >= 2);
    ws.send(JSON.stringify({ type: 'subscribe', runId: 'done-1', afterSeq: 0 }));
    const msgs = await c.until(
      (m) => m.flatMap((x) => (x.type === 'deltas' ? x.events : [])).length === hangRunEvents('x').length + 1,
    );
    const types = msgs.flatMap((x) => (x.type === 'deltas' ? x.events.map((e) => e.event.type) : []));
    expect(types).toContain('breaker.tripped');
    expect(types.at(-1)).toBe('run.status');
  });

  it('refuses an upgrade from a foreign Origin with 403', async ({ app }) => {
    await expect(open(app, { origin: 'http://evil.example' })).rejects.toThrow(/403/);
    const { c } = await open(app, { origin: 'http://127.0.0.1:7077' });
    await c.until((m) => m.length >= 1);
  });

  it('requires the token on the upgrade when one is configured', async ({ newApp }) => {
    const app = await newApp({ host: '0.0.0.0', token: 'tok' });
    await expect(open(app)).rejects.toThrow(/401/);
    const { c } = await open(app, { authorization: 'Bearer tok' });
    await c.until((m) => m.length >= 2);
  });
});
