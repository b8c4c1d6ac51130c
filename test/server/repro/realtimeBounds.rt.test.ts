/**
 * What one realtime client may hand the reproduction server
 * (server/repro/realtime/limits.ts, docs/design.md#peer-bounds): an event over 1 MiB — a 15 MB
 * prompt, which cost ~640 MB parsed and spoken — is refused unparsed with an
 * `error` event naming its size and the limit, and a session's text summed
 * over its life is held to its cap; the session stays usable after either.
 */
import { afterEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { startReproServer } from '#server/repro/server.ts';
import { REALTIME_MAX_MESSAGE_BYTES, REALTIME_MAX_SESSION_TEXT_CHARS } from '#server/repro/realtime/limits.ts';
import { MODEL } from '#test/helpers/code2wav.ts';

type Ev = Record<string, any> & { type: string };
const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of closers.splice(0).reverse()) await c();
});

async function session() {
  const target = await startReproServer({ tokenRate: 500, log: () => undefined });
  closers.push(() => target.close());
  const ws = new WebSocket(`${target.url.replace('http', 'ws')}/v1/realtime?model=${encodeURIComponent(MODEL)}`);
  closers.push(async () => void ws.terminate());
  const events: Ev[] = [];
  ws.on('message', (d) => events.push(JSON.parse(String(d)) as Ev));
  await new Promise((r) => ws.once('open', r));
  const next = async (type: string, from: number): Promise<Ev> => {
    await expect.poll(() => events.slice(from).find((e) => e.type === type), { timeout: 10_000 }).toBeDefined();
    return events.slice(from).find((e) => e.type === type)!;
  };
  const item = (text: string) =>
    JSON.stringify({
      type: 'conversation.item.create',
      item: { type: 'message', role: 'user', content: [{ type: 'input_text', text }] },
    });
  return { ws, events, next, item };
}

describe('realtime bounds on the reproduction server', () => {
  it('refuses a 15 MB prompt unparsed with an error event; the session still answers a normal turn', async () => {
    const { ws, events, next, item } = await session();
    ws.send(item('x'.repeat(15 * 1024 * 1024)));
    const err = await next('error', 0);
    expect(err.error.code).toBe('message_too_large');
    expect(err.error.message).toContain(`over the ${REALTIME_MAX_MESSAGE_BYTES}-byte limit`);
    // Nothing of it was taken: no item, no response.
    expect(events.some((e) => e.type.startsWith('conversation.item'))).toBe(false);
    const from = events.length;
    ws.send(item('a short prompt'));
    ws.send(JSON.stringify({ type: 'response.create' }));
    const done = await next('response.done', from);
    expect(done.response.status).toBe('completed');
  }, 30_000);

  it("holds a session's text summed over its life to the cap, each item under the per-event limit", async () => {
    const { ws, events, next, item } = await session();
    const piece = 'y'.repeat(512 * 1024);
    const allowed = Math.floor(REALTIME_MAX_SESSION_TEXT_CHARS / piece.length);
    for (let i = 0; i < allowed; i++) ws.send(item(piece));
    ws.send(item(piece));
    const err = await next('error', 0);
    expect(err.error.code).toBe('session_text_limit');
    expect(events.filter((e) => e.type === 'conversation.item.created')).toHaveLength(allowed);
  }, 30_000);
});
