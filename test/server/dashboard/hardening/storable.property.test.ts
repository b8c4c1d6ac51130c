/**
 * Random placements of what no database can store: a U+0000 or an unpaired surrogate put into a random string
 * (or key) of a valid reported batch. Each is refused whole with a 400 naming exactly the field it was put in, and
 * the run's events are unchanged; the same batch without it is accepted.
 */
import fc from 'fast-check';
import { describe, expect } from 'vitest';
import { test as it } from '#test/helpers/fixtures.ts';
import { hangRunEvents } from '#test/helpers/sampleEvents.ts';

const valid = hangRunEvents('pz').filter((e) => e.type !== 'telemetry' && e.type !== 'run.finished');

/** Every string leaf of `v` (and every key), as a path of keys. */
function stringPaths(v: unknown, at: string[] = []): { path: string[]; key: boolean }[] {
  if (typeof v === 'string') return [{ path: at, key: false }];
  if (typeof v !== 'object' || v === null) return [];
  return Object.entries(v).flatMap(([k, x]) => [
    ...(Array.isArray(v) ? [] : [{ path: [...at, k], key: true }]),
    ...stringPaths(x, [...at, k]),
  ]);
}

/** `batch` with `bad` put into the string (or key) at `p`; the field the refusal must name. */
function poisoned(batch: unknown[], p: { path: string[]; key: boolean }, bad: string): [unknown[], string] {
  const copy = structuredClone(batch) as Record<string, unknown>[];
  let obj: Record<string, unknown> = copy as unknown as Record<string, unknown>;
  for (const k of p.path.slice(0, -1)) obj = obj[k] as Record<string, unknown>;
  const last = p.path[p.path.length - 1];
  if (!p.key) {
    obj[last] = `${obj[last] as string}${bad}`;
    return [copy, ['events', ...p.path].join('.')];
  }
  const named = `${last}${bad}`;
  obj[named] = obj[last];
  delete obj[last];
  const escaped = named.replace(/[\0\ud800-\udfff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
  return [copy, ['events', ...p.path.slice(0, -1), escaped].join('.')];
}

describe('reported batches with unstorable text at random places', () => {
  it('each is refused whole, naming the field; nothing changes', async ({ app }) => {
    await app.inject({ method: 'POST', url: '/api/runs/external', payload: { runId: 'pz' } });
    const first = await app.inject({
      method: 'POST',
      url: '/api/runs/pz/events',
      payload: { events: valid.slice(0, 1) },
    });
    expect(first.statusCode).toBe(200);
    const rest = valid.slice(1);
    // Keys are skipped where they would break the event's own schema before the text is looked at (its type).
    const paths = stringPaths(rest).filter((p) => !(p.path.length === 2 && p.path[1] === 'type'));
    const before = (await app.inject({ url: '/api/runs/pz/events' })).body;
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...paths), fc.constantFrom('\u0000', '\ud800', '\udfff'), async (p, bad) => {
        const [events, field] = poisoned(rest, p, bad);
        const res = await app.inject({ method: 'POST', url: '/api/runs/pz/events', payload: { events } });
        expect(res.statusCode, res.body).toBe(400);
        expect(res.json().field).toBe(field);
        expect((await app.inject({ url: '/api/runs/pz/events' })).body).toBe(before);
      }),
      { numRuns: 150 },
    );
    const ok = await app.inject({ method: 'POST', url: '/api/runs/pz/events', payload: { events: rest } });
    expect(ok.statusCode).toBe(200);
  });
});
