import { afterEach, describe, expect, it } from 'vitest';
import { WebSocket, WebSocketServer } from 'ws';
import type { AddressInfo } from 'node:net';
import { PROTOCOL_VERSION, type ClientMessage, type ServerMessage } from '#shared/protocol/protocol.ts';
import { createLiveClient, type SocketLike } from '#web/api/liveClient.ts';
import { createRunStore } from '#web/state/runStore.ts';
import { failFastRun, numbered } from '#test/helpers/failFastRun.ts';

const all = numbered(failFastRun());
const cleanups: (() => void)[] = [];
afterEach(() => {
  while (cleanups.length) cleanups.pop()!();
});

/** A tiny /ws server: remembers the subscribes it got and lets the test push frames or drop clients. */
async function fakeServer() {
  const wss = new WebSocketServer({ host: '127.0.0.1', port: 0 });
  await new Promise<void>((r) => wss.once('listening', () => r()));
  const subscribes: ClientMessage[] = [];
  const waiters: (() => void)[] = [];
  wss.on('connection', (ws) => {
    ws.send(JSON.stringify({ type: 'hello', v: PROTOCOL_VERSION } satisfies ServerMessage));
    ws.send(JSON.stringify({ type: 'snapshot', runs: [] } satisfies ServerMessage));
    ws.on('message', (raw) => {
      subscribes.push(JSON.parse(String(raw)));
      waiters.splice(0).forEach((w) => w());
    });
  });
  cleanups.push(() => wss.close());
  const port = (wss.address() as AddressInfo).port;
  return {
    url: `ws://127.0.0.1:${port}/ws`,
    subscribes,
    nextMessage: () => new Promise<void>((r) => waiters.push(r)),
    broadcast(m: ServerMessage) {
      for (const c of wss.clients) c.send(JSON.stringify(m));
    },
    dropAll() {
      for (const c of wss.clients) c.terminate();
    },
  };
}

const until = async (cond: () => boolean, ms = 3000) => {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 5));
  }
};

describe('liveClient', () => {
  it('goes live, subscribes from the store seq, reconnects and resumes without duplicates', async () => {
    const srv = await fakeServer();
    const store = createRunStore();
    const client = createLiveClient({
      url: srv.url,
      store,
      baseDelayMs: 10,
      maxDelayMs: 40,
      createSocket: (u) => new WebSocket(u) as unknown as SocketLike,
    });
    cleanups.push(() => client.stop());
    client.start();
    const unwatch = client.watch('run1');
    await until(() => store.getSnapshot().connection === 'live' && srv.subscribes.length > 0);
    expect(srv.subscribes[0]).toEqual({ type: 'subscribe', runId: 'run1', afterSeq: 0 });

    srv.broadcast({ type: 'deltas', runId: 'run1', events: all.slice(0, 15) });
    await until(() => store.getSnapshot().runs.run1?.seq === 15);

    srv.dropAll();
    await until(() => store.getSnapshot().connection === 'reconnecting');
    await until(() => store.getSnapshot().connection === 'live' && srv.subscribes.length > 1);
    expect(srv.subscribes[1]).toEqual({ type: 'subscribe', runId: 'run1', afterSeq: 15 });

    // The server replays from 15, with some overlap a careless server might add.
    srv.broadcast({ type: 'deltas', runId: 'run1', events: all.slice(10) });
    await until(() => store.getSnapshot().runs.run1?.seq === all.length);
    const m = store.getSnapshot().runs.run1;
    expect(m.counts.completed).toBe(1);
    expect(m.requests).toHaveLength(4);

    unwatch();
    await until(() => srv.subscribes.length > 2);
    expect(srv.subscribes[2]).toEqual({ type: 'unsubscribe', runId: 'run1' });
  });

  it('asks again from its last seq when a gap shows up, and on a server resync', async () => {
    const srv = await fakeServer();
    const store = createRunStore();
    let clock = 0;
    const client = createLiveClient({
      url: srv.url,
      store,
      now: () => clock,
      createSocket: (u) => new WebSocket(u) as unknown as SocketLike,
    });
    cleanups.push(() => client.stop());
    client.start();
    client.watch('run1');
    await until(() => srv.subscribes.length === 1);
    srv.broadcast({ type: 'deltas', runId: 'run1', events: all.slice(0, 5) });
    await until(() => store.getSnapshot().runs.run1?.seq === 5);
    clock += 600; // past the resubscribe rate limit
    srv.broadcast({ type: 'deltas', runId: 'run1', events: all.slice(8, 10) }); // 6..8 missing
    await until(() => srv.subscribes.length === 2);
    expect(srv.subscribes[1]).toEqual({ type: 'subscribe', runId: 'run1', afterSeq: 5 });
    srv.broadcast({ type: 'resync', reason: 'slow client' });
    await until(() => srv.subscribes.length === 3);
    expect(srv.subscribes[2]).toMatchObject({ type: 'subscribe', afterSeq: 5 });
  });

  it('says offline after the bounded retries when nothing listens', async () => {
    const store = createRunStore();
    const client = createLiveClient({
      url: 'ws://127.0.0.1:9/ws',
      store,
      baseDelayMs: 1,
      maxDelayMs: 2,
      offlineAfter: 3,
      createSocket: (u) => new WebSocket(u) as unknown as SocketLike,
    });
    cleanups.push(() => client.stop());
    client.start();
    await until(() => store.getSnapshot().connection === 'offline');
    expect(store.getSnapshot().reconnectAttempt).toBeGreaterThan(3);
  });
});
