import { describe, expect, it } from 'vitest';
import { SqliteStore } from '#server/dashboard/store/sqlite/sqliteStore.ts';
import { Hub } from '#server/dashboard/hub/hub.ts';
import { ClientSession, type Transport } from '#server/dashboard/hub/clientSession.ts';
import type { ServerMessage, SeqEvent } from '#shared/protocol/protocol.ts';
import { completedRequest, newRun } from '#test/helpers/sampleEvents.ts';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function fakeTransport(buffered = () => 0) {
  const frames: ServerMessage[] = [];
  const t: Transport = { send: (s) => frames.push(JSON.parse(s)), bufferedAmount: buffered };
  return { t, frames };
}

function setup(ringSize = 1000) {
  const store = new SqliteStore({ dataDir: null, flushIntervalMs: 10 });
  const hub = new Hub(store, { ringSize });
  store.runs.insertRun(newRun('r'));
  hub.open('r', 'label');
  return { store, hub };
}

const seqsOf = (frames: ServerMessage[]) =>
  frames.flatMap((f) => (f.type === 'deltas' ? f.events.map((e: SeqEvent) => e.seq) : []));

describe('hub', () => {
  it('numbers events per run from 1 without gaps and reads them back from the ring or the store', async () => {
    const { hub, store } = setup(8);
    for (let i = 0; i < 10; i++) for (const e of completedRequest('r', i)) hub.append('r', e);
    expect(await hub.headSeq('r')).toBe(40);
    expect((await hub.readAfter('r', 35, 100)).map((e) => e.seq)).toEqual([36, 37, 38, 39, 40]);
    // seq 3.. is no longer in an 8-event ring: it comes from the store.
    expect((await hub.readAfter('r', 2, 3)).map((e) => e.seq)).toEqual([3, 4, 5]);
    expect(hub.snapshot()[0]).toMatchObject({ runId: 'r', seq: 40, counts: { completed: 10 }, inFlight: 0 });
    hub.close('r');
    expect((await hub.readAfter('r', 38, 10)).map((e) => e.seq)).toEqual([39, 40]);
    expect(await hub.headSeq('r')).toBe(40);
    expect(await hub.headSeq('nope')).toBeNull();
    store.closeNow();
  });

  it('holds at most an eighth more than its ring: events that left it are let go as the run goes on', async () => {
    const { hub, store } = setup(80);
    let most = 0;
    for (let i = 0; i < 100; i++) {
      for (const e of completedRequest('r', i)) hub.append('r', e);
      most = Math.max(most, hub.ringHeld('r'));
    }
    expect(most).toBe(80 + 10); // compacted as the eleventh dropped event arrives, every time
    // The last 80 are still served from memory: at once, not a promise (older ones come from the store).
    const last = hub.readAfter('r', 400 - 80, 1000);
    expect(Array.isArray(last) && last.map((e) => e.seq)).toEqual(Array.from({ length: 80 }, (_, i) => 400 - 79 + i));
    const older = hub.readAfter('r', 400 - 81, 1000);
    expect(older).toBeInstanceOf(Promise);
    expect((await older).map((e) => e.seq)).toEqual(Array.from({ length: 81 }, (_, i) => 400 - 80 + i));
    store.closeNow();
  });
});

describe('client session', () => {
  it('sends hello and a snapshot first, then batched deltas for subscribed runs only', async () => {
    const { hub, store } = setup();
    const { t, frames } = fakeTransport();
    const s = new ClientSession(hub, t, { batchMs: 20 });
    expect(frames.map((f) => f.type)).toEqual(['hello', 'snapshot', 'store']);
    expect(frames[2]).toMatchObject({ type: 'store', health: { database: 'sqlite', connected: true } });
    expect(frames[1]).toMatchObject({ type: 'snapshot', runs: [{ runId: 'r', seq: 0 }] });
    for (const e of completedRequest('r', 0)) hub.append('r', e);
    await sleep(40);
    expect(frames).toHaveLength(3); // not subscribed yet
    s.handle(JSON.stringify({ type: 'subscribe', runId: 'r', afterSeq: 0 }));
    await sleep(10);
    for (let i = 1; i < 5; i++) for (const e of completedRequest('r', i)) hub.append('r', e);
    await sleep(60);
    const deltas = frames.filter((f) => f.type === 'deltas');
    expect(seqsOf(frames)).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
    expect(deltas.length).toBeLessThanOrEqual(2); // 16 appends in one tick → one frame
    s.close();
    store.closeNow();
  });

  it('a reconnecting client gets exactly the events after its last seq, from memory or the store', async () => {
    const { hub, store } = setup(5);
    for (let i = 0; i < 6; i++) for (const e of completedRequest('r', i)) hub.append('r', e);
    const { t, frames } = fakeTransport();
    const s = new ClientSession(hub, t, { batchMs: 5, maxEventsPerFrame: 7 });
    s.handle(JSON.stringify({ type: 'subscribe', runId: 'r', afterSeq: 9 }));
    // Reads older than the ring go to the store, one frame after another (a busy machine may take a while).
    await expect.poll(() => seqsOf(frames)).toEqual(Array.from({ length: 15 }, (_, i) => i + 10));
    expect(frames.filter((f) => f.type === 'deltas').every((f) => f.type === 'deltas' && f.events.length <= 7)).toBe(
      true,
    );
    s.close();
    store.closeNow();
  });

  it('tells a slow client to resync once its unsent bytes pass the limit, and stops sending it deltas', async () => {
    const { hub, store } = setup();
    let buffered = 0;
    const { t, frames } = fakeTransport(() => buffered);
    const s = new ClientSession(hub, t, { batchMs: 5, maxBufferedBytes: 1000 });
    s.handle(JSON.stringify({ type: 'subscribe', runId: 'r', afterSeq: 0 }));
    for (const e of completedRequest('r', 0)) hub.append('r', e);
    await sleep(20);
    buffered = 5000;
    for (const e of completedRequest('r', 1)) hub.append('r', e);
    await sleep(20);
    expect(frames.at(-1)).toMatchObject({ type: 'resync' });
    expect(s.subscriptions().size).toBe(0);
    const n = frames.length;
    for (const e of completedRequest('r', 2)) hub.append('r', e);
    await sleep(20);
    expect(frames.length).toBe(n);
    s.close();
    store.closeNow();
  });

  it('sends a new snapshot when runs start or end, and run.removed for deleted or unknown runs', async () => {
    const { hub, store } = setup();
    const { t, frames } = fakeTransport();
    const s = new ClientSession(hub, t);
    store.runs.insertRun(newRun('r2'));
    hub.open('r2', null);
    expect(frames.at(-1)).toMatchObject({ type: 'snapshot', runs: [{ runId: 'r' }, { runId: 'r2' }] });
    hub.close('r');
    expect(frames.at(-1)).toMatchObject({ type: 'snapshot', runs: [{ runId: 'r2' }] });
    s.handle(JSON.stringify({ type: 'subscribe', runId: 'ghost', afterSeq: 0 }));
    await new Promise((r) => setImmediate(r)); // the store is asked for the run's head
    expect(frames.at(-1)).toEqual({ type: 'run.removed', runId: 'ghost' });
    hub.removed('r2');
    expect(frames.at(-1)).toEqual({ type: 'run.removed', runId: 'r2' });
    s.handle('not json');
    s.handle(JSON.stringify({ type: 'subscribe' }));
    // Checked against the protocol schema, not cast: none of these subscribes to anything.
    const sent = frames.length;
    for (const bad of [
      { type: 'subscribe', runId: 'r2', afterSeq: -1 },
      { type: 'subscribe', runId: 'r2', afterSeq: '0' },
      { type: 'subscribe', runId: ['r2'], afterSeq: 0 },
      { type: 'subscribe', runId: '', afterSeq: 0 },
      { type: 'unsubscribe' },
      [1, 2],
    ])
      s.handle(JSON.stringify(bad));
    expect(frames.length).toBe(sent);
    expect((s as unknown as { cursors: Map<string, number> }).cursors.size).toBe(0);
    s.close();
    store.closeNow();
  });
});
