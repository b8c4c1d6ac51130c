/**
 * Open in Perfetto's handshake (web/api/perfetto.ts), with a fake tab and
 * timers: it pings until ui.perfetto.dev's tab answers PONG, then posts the
 * trace (transferred) to that origin only; a PONG from elsewhere is not
 * Perfetto's; a blocked tab, a silent one and an unreadable trace each
 * reject with what to do instead.
 */
import { describe, expect, it } from 'vitest';
import { openInPerfetto, PERFETTO_ANSWER_MS, PERFETTO_ORIGIN, type PerfettoDeps } from '#web/api/perfetto.ts';

interface Posted {
  message: unknown;
  origin: string;
  transfer?: Transferable[];
}

function harness(o: { blocked?: boolean; trace?: Promise<ArrayBuffer> } = {}) {
  const posted: Posted[] = [];
  const tab = {
    postMessage: (message: unknown, origin: string, transfer?: Transferable[]) =>
      void posted.push({ message, origin, transfer }),
  };
  let handler: ((e: { source: unknown; origin: string; data: unknown }) => void) | null = null;
  const intervals = new Map<number, () => void>();
  const timeouts = new Map<number, () => void>();
  let next = 1;
  const deps: PerfettoDeps = {
    open: (url) => (o.blocked ? null : (expect(url).toBe(PERFETTO_ORIGIN), tab)),
    fetchTrace: () => o.trace ?? Promise.resolve(new TextEncoder().encode('{"traceEvents":[]}').buffer),
    onMessage: (h) => {
      handler = h;
      return () => (handler = null);
    },
    setInterval: (fn) => (intervals.set(next, fn), next++),
    clearInterval: (id) => intervals.delete(id as number),
    setTimeout: (fn, ms) => (expect(ms).toBe(PERFETTO_ANSWER_MS), timeouts.set(next, fn), next++),
    clearTimeout: (id) => timeouts.delete(id as number),
  };
  return {
    tab,
    deps,
    posted,
    tick: () => [...intervals.values()].forEach((f) => f()),
    expire: () => [...timeouts.values()].forEach((f) => f()),
    message: (e: { source: unknown; origin: string; data: unknown }) => handler?.(e),
    listening: () => handler !== null,
    pinging: () => intervals.size > 0,
  };
}

const trace = { title: 'stallscope run r1', fileName: 'stallscope-r1.trace.json' };
const flush = () => new Promise((r) => setTimeout(r, 0));

describe('Open in Perfetto', () => {
  it('pings until the tab answers PONG, then posts the trace to ui.perfetto.dev only', async () => {
    const h = harness();
    const done = openInPerfetto(trace, h.deps);
    h.tick();
    h.tick();
    expect(h.posted.map((p) => [p.message, p.origin])).toEqual([
      ['PING', PERFETTO_ORIGIN],
      ['PING', PERFETTO_ORIGIN],
    ]);
    await flush(); // the trace is read meanwhile
    h.message({ source: {}, origin: PERFETTO_ORIGIN, data: 'PONG' }); // not the tab we opened
    h.message({ source: h.tab, origin: 'https://evil.example', data: 'PONG' }); // not Perfetto's origin
    expect(h.posted).toHaveLength(2);
    h.message({ source: h.tab, origin: PERFETTO_ORIGIN, data: 'PONG' });
    await done;
    const last = h.posted[2];
    expect(last.origin).toBe(PERFETTO_ORIGIN);
    const { perfetto } = last.message as { perfetto: { buffer: ArrayBuffer; title: string; fileName: string } };
    expect(new TextDecoder().decode(perfetto.buffer)).toBe('{"traceEvents":[]}');
    expect(perfetto).toMatchObject(trace);
    expect(last.transfer).toEqual([perfetto.buffer]);
    expect(h.pinging()).toBe(false);
    expect(h.listening()).toBe(false);
  });

  it('waits for the trace when the tab answers first', async () => {
    let release!: (b: ArrayBuffer) => void;
    const h = harness({ trace: new Promise((r) => (release = r)) });
    const done = openInPerfetto(trace, h.deps);
    h.message({ source: h.tab, origin: PERFETTO_ORIGIN, data: 'PONG' });
    expect(h.posted).toHaveLength(0);
    release(new ArrayBuffer(3));
    await done;
    expect((h.posted[0].message as { perfetto: { buffer: ArrayBuffer } }).perfetto.buffer.byteLength).toBe(3);
  });

  it('a blocked tab, a silent one and an unreadable trace each say what to do instead', async () => {
    await expect(openInPerfetto(trace, harness({ blocked: true }).deps)).rejects.toThrow(
      /^The browser blocked the new tab: allow pop-ups for this page, or download the trace/,
    );
    const silent = harness();
    const waiting = openInPerfetto(trace, silent.deps);
    silent.expire();
    await expect(waiting).rejects.toThrow(
      /^ui\.perfetto\.dev did not answer within 30 s \(offline\?\): download the trace/,
    );
    expect(silent.pinging()).toBe(false);
    const broken = harness({ trace: Promise.reject(new Error('HTTP 404')) });
    await expect(openInPerfetto(trace, broken.deps)).rejects.toThrow('The trace could not be read: HTTP 404.');
  });
});
