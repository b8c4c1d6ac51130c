/**
 * Operating the target while it hangs: /health answers and names the stuck
 * phase, the admin reset replaces hung workers without leaking threads, a
 * departed client's request leaves its batch, and telemetry over HTTP is
 * flushed (and drops counted) without ever blocking the server.
 */
import { createServer, type Server } from 'node:http';
import { readdirSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { startReproServer } from '#server/repro/server.ts';
import type { TelemetryEvent } from '#shared/protocol/telemetry.ts';
import { waitFor } from '#test/helpers/waitFor.ts';
import { chatBody, post } from '#test/helpers/reproChat.ts';

let stops: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const s of stops.reverse()) await s();
  stops = [];
});

async function target(opts: Parameters<typeof startReproServer>[0]) {
  const s = await startReproServer(opts);
  stops.push(() => s.close());
  return s;
}

const threads = () => readdirSync('/proc/self/task').length;
const health = async (url: string) => (await fetch(`${url}/health`)).json();

describe('repro server operations', () => {
  it('answers /health while every worker spins, naming the phase; reset replaces them without leaking threads', async () => {
    const s = await target({ workers: 2, tokenRate: 1000, faults: ['encoder:spin:p=1'] });
    const idleThreads = threads();
    for (const i of [0, 1])
      post(s.url, chatBody({ max_tokens: 8, ignore_eos: true }), { 'x-request-id': `hang-${i}` })
        .then((r) => r.text())
        .catch(() => undefined);
    const h = await waitFor(async () => {
      const body = await health(s.url);
      return body.workers.every((w: any) => w.busy && w.phase === 'encoder') ? body : null;
    });
    expect(h.workers.map((w: any) => [w.busy, w.phase])).toEqual([
      [true, 'encoder'],
      [true, 'encoder'],
    ]);
    const times: number[] = [];
    for (let i = 0; i < 30; i++) {
      const t0 = performance.now();
      const body = await health(s.url);
      times.push(performance.now() - t0);
      expect(body.workers[0]).toMatchObject({ busy: true, phase: 'encoder' });
      expect(body.workers[0].since).toBeGreaterThan(0);
      expect(body.workers[0].opId).toBeGreaterThan(0);
    }
    expect(Math.max(...times)).toBeLessThan(1000);
    const reset = await (await fetch(`${s.url}/admin/workers/reset`, { method: 'POST' })).json();
    expect(reset.replaced.sort()).toEqual([0, 1]);
    const after = await health(s.url);
    expect(after.workers.map((w: any) => w.busy)).toEqual([false, false]);
    await waitFor(() => threads() === idleThreads, 3000);
    // The replacements work (the spin fault still applies to every op, so use text only).
    const res = await post(s.url, chatBody({ max_tokens: 3, modalities: ['text'] }));
    expect(res.status).toBe(200);
    await res.text();
  });

  it('keeps every chunk of a request on one worker and batches windows of different requests', async () => {
    const events: TelemetryEvent[] = [];
    const s = await target({ workers: 2, tokenRate: 2000, onTelemetry: (e) => events.push(e) });
    await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        post(s.url, chatBody({ max_tokens: 20, ignore_eos: true }), { 'x-request-id': `aff-${i}` }).then((r) =>
          r.text(),
        ),
      ),
    );
    const begins = events.filter(
      (e): e is Extract<TelemetryEvent, { type: 'c2w.op.begin' }> => e.type === 'c2w.op.begin',
    );
    for (let i = 0; i < 6; i++) {
      const mine = begins.filter((e) => e.requestIds.includes(`aff-${i}`));
      expect(mine).toHaveLength(4); // 100 codes: windows of 25
      expect(new Set(mine.map((e) => e.workerId)).size).toBe(1);
    }
    expect(new Set(begins.map((e) => e.workerId))).toEqual(new Set([0, 1]));
    expect(Math.max(...begins.map((e) => e.batchSize))).toBeGreaterThan(1);
    expect(Math.max(...begins.map((e) => e.batchSize))).toBeLessThanOrEqual(4);
  });

  it("decodes each request's windows in order when first windows and later ones share the queue", async () => {
    // Staggered arrivals on the single owner thread put a new request's first
    // window between later windows of others; a batch must never take a
    // request's window ahead of an earlier one still queued.
    const s = await target({ workers: 1, maxBatch: 4, tokenRate: 2000 });
    const bodies = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        new Promise((r) => setTimeout(r, i * 25)).then(() =>
          post(s.url, chatBody({ max_tokens: 10 + 3 * i, ignore_eos: true }), { 'x-request-id': `order-${i}` }).then(
            (r) => r.text(),
          ),
        ),
      ),
    );
    for (const [i, body] of bodies.entries()) {
      expect(body, `request ${i}`).not.toContain('"error"');
      const audio = body.split('\n\n').filter((m) => m.includes('"modality":"audio"'));
      expect(audio.length, `request ${i}`).toBe(Math.ceil(((10 + 3 * i) * 5) / 25));
    }
  });

  it('fails the requests of a reset worker with an in-stream error', async () => {
    const s = await target({ tokenRate: 1000, faults: ['hift:block'] });
    const res = await post(s.url, chatBody({ max_tokens: 8, ignore_eos: true }), { 'x-request-id': 'victim' });
    const text = res.text();
    await waitFor(async () => (await health(s.url)).workers[0].phase === 'hift');
    await fetch(`${s.url}/admin/workers/reset?stalledForMs=0`, { method: 'POST' });
    const body = await text;
    expect(body).toContain('"error"');
    expect(body).toContain('reset');
    expect(body.trimEnd().endsWith('data: [DONE]')).toBe(true);
  });

  it('drops a departed client from its batch and does no more work for it', async () => {
    const events: TelemetryEvent[] = [];
    const s = await target({ tokenRate: 100, onTelemetry: (e) => events.push(e) });
    const ac = new AbortController();
    const res = await post(
      s.url,
      chatBody({ max_tokens: 60, ignore_eos: true }),
      { 'x-request-id': 'leaver' },
      ac.signal,
    );
    const reader = res.body!.getReader();
    let seen = '';
    while (!seen.includes('"modality":"audio"')) seen += new TextDecoder().decode((await reader.read()).value);
    ac.abort();
    await waitFor(async () => (await health(s.url)).inflight === 0);
    const cut = events.length;
    await new Promise((r) => setTimeout(r, 400)); // at 100 tokens/s this would have been 8 more windows
    const later = events.slice(cut).filter((e) => 'requestIds' in e && e.requestIds.includes('leaver'));
    expect(later.filter((e) => e.type === 'c2w.op.begin')).toEqual([]);
    expect((await health(s.url)).workers[0]).toMatchObject({ busy: false, queued: 0, requests: 0 });
  });

  it("drops a departed client's row from the running batch at the next phase", async () => {
    const events: TelemetryEvent[] = [];
    const s = await target({ tokenRate: 2000, faults: ['setup:slow:p=1:ms=400'], onTelemetry: (e) => events.push(e) });
    const body = chatBody({ max_tokens: 5, ignore_eos: true }); // 25 codes: one window each
    const first = post(s.url, body, { 'x-request-id': 'first' }).then((r) => r.text());
    await waitFor(() => events.some((e) => e.type === 'c2w.phase' && e.phase === 'setup'));
    const ac = new AbortController();
    const leaver = post(s.url, body, { 'x-request-id': 'leaver' }, ac.signal)
      .then((r) => r.text())
      .catch(() => 'aborted');
    const stayer = post(s.url, body, { 'x-request-id': 'stayer' }).then((r) => r.text());
    // Both windows queue behind the slow first op and form one batch.
    const batch = await waitFor(() => events.find((e) => e.type === 'c2w.op.begin' && e.requestIds.includes('leaver')));
    expect(batch.type === 'c2w.op.begin' && batch.requestIds.sort()).toEqual(['leaver', 'stayer']);
    ac.abort();
    const [, , kept] = await Promise.all([first, leaver, stayer]);
    expect(kept).toContain('"modality":"audio"');
    const opId = batch.type === 'c2w.op.begin' ? batch.opId : -1;
    const phases = events.filter(
      (e): e is Extract<TelemetryEvent, { type: 'c2w.phase' }> => e.type === 'c2w.phase' && e.opId === opId,
    );
    expect(phases.find((e) => e.phase === 'setup')!.details.batch_size).toBe(2);
    expect(phases.find((e) => e.phase === 'encoder')!.details.codes).toBe(28); // one row of 3 + 25 codes left
    expect(phases.find((e) => e.phase === 'output_copy')!.details.chunks).toBe(1);
  });

  it('flushes telemetry to the ingest URL only once every event has been acknowledged', async () => {
    const received: TelemetryEvent[] = [];
    let contentType = '';
    const sink: Server = createServer((req, res) => {
      let body = '';
      contentType = req.headers['content-type'] ?? '';
      req.on('data', (c) => (body += c));
      req.on('end', () =>
        setTimeout(() => {
          for (const line of body.split('\n').filter(Boolean)) received.push(JSON.parse(line));
          res.end('{}');
        }, 80),
      ); // a slow ingest: flush must wait for it
    });
    await new Promise<void>((r) => sink.listen(0, '127.0.0.1', r));
    stops.push(() => new Promise((r) => sink.close(() => r())));
    const port = (sink.address() as { port: number }).port;
    const s = await target({
      tokenRate: 1000,
      telemetry: { url: `http://127.0.0.1:${port}/api/ingest?runId=XYZ`, flushIntervalMs: 1000 },
    });
    await (await post(s.url, chatBody({ max_tokens: 6, ignore_eos: true }), { 'x-request-id': 'XYZ-0' })).text();
    const flushed = await (await fetch(`${s.url}/admin/telemetry/flush`, { method: 'POST' })).json();
    expect(contentType).toBe('application/x-ndjson');
    expect(flushed).toEqual({ sent: received.length, dropped: 0 });
    const types = new Set(received.map((e) => e.type));
    for (const t of ['c2w.op.begin', 'c2w.phase', 'c2w.op.end', 'worker.busy', 'worker.idle', 'stage.progress'])
      expect(types.has(t as TelemetryEvent['type'])).toBe(true);
    expect(received.every((e) => e.v === 1 && e.model === 'openbmb/MiniCPM-o-4_5' && e.ts > 0)).toBe(true);
    expect(
      received.filter((e) => e.type === 'c2w.op.end').every((e) => 'requestIds' in e && e.requestIds.includes('XYZ-0')),
    ).toBe(true);
  });

  it('never blocks on an absent sink, counts what it drops and reports overflow in telemetry.dropped', async () => {
    const dead = await target({
      tokenRate: 1000,
      telemetry: { url: 'http://127.0.0.1:9/ingest', flushIntervalMs: 10 },
    });
    const res = await post(dead.url, chatBody({ max_tokens: 4, ignore_eos: true }));
    expect(res.status).toBe(200);
    await res.text();
    const flushed = await (await fetch(`${dead.url}/admin/telemetry/flush`, { method: 'POST' })).json();
    expect(flushed.sent).toBe(0);
    expect(flushed.dropped).toBeGreaterThan(10);

    const received: TelemetryEvent[] = [];
    const sink = createServer((req, res) => {
      let body = '';
      req.on('data', (c) => (body += c));
      req.on('end', () => {
        for (const l of body.split('\n').filter(Boolean)) received.push(JSON.parse(l));
        res.end();
      });
    });
    await new Promise<void>((r) => sink.listen(0, '127.0.0.1', r));
    stops.push(() => new Promise((r) => sink.close(() => r())));
    const s = await target({
      tokenRate: 1000,
      telemetry: {
        url: `http://127.0.0.1:${(sink.address() as { port: number }).port}/`,
        maxQueue: 5,
        flushIntervalMs: 5000,
      },
    });
    await (await post(s.url, chatBody({ max_tokens: 6, ignore_eos: true }))).text();
    const f = await (await fetch(`${s.url}/admin/telemetry/flush`, { method: 'POST' })).json();
    const notice = received.find((e) => e.type === 'telemetry.dropped');
    expect(f.dropped).toBeGreaterThan(0);
    expect(notice && notice.type === 'telemetry.dropped' && notice.count).toBe(f.dropped);
    expect(received.filter((e) => e.type !== 'telemetry.dropped')).toHaveLength(5);
  });
});
