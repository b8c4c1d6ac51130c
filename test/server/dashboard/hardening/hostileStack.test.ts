/**
 * A hostile stall line costs the dashboard no more than reading it (docs/design.md#peer-bounds): a watchdog.stall
 * whose frame holds 1 MB in the shapes that made the fingerprint quadratic is refused by the schema on its own
 * line, naming the field, in a small multiple of parsing the line (before: accepted, then fingerprinted on the
 * writer's main thread — 60 KB held the loop 3.3 s, 200 KB more than 30 s). A frame at the cap is accepted.
 */
import { describe, expect } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { test as it } from '#test/helpers/fixtures.ts';
import { sqliteOf } from '#test/helpers/sqliteStore.ts';
import { newRun, stallReport } from '#test/helpers/sampleEvents.ts';
import { FRAME_TEXT_MAX } from '#shared/stalls/frameText.ts';

const MB = 1024 * 1024;

function stallLine(fn: string, file = 'x.py'): string {
  const report = stallReport('hs', 1);
  report.stack = [{ function: fn, file, line: 1, column: 1, language: 'python' }];
  return JSON.stringify({ v: 1, ts: 1, type: 'watchdog.stall', report });
}

const post = (app: FastifyInstance, payload: string) =>
  app.inject({
    method: 'POST',
    url: '/api/ingest?runId=hs',
    headers: { 'content-type': 'application/x-ndjson' },
    payload,
  });

describe('a hostile stall line through POST /api/ingest', () => {
  it.for([
    ['report.stack.0.function', 'f' + ' '.repeat(MB) + 'x', 'x.py'],
    ['report.stack.0.file', 'work', 'x.py' + ':1'.repeat(MB / 2) + 'x'],
  ])('1 MB in %s is refused on its line, at the cost of parsing it', async ([field, fn, file], { app }) => {
    sqliteOf(app.store).runs.insertRun(newRun('hs'));
    app.hub.open('hs', null);
    const line = stallLine(fn, file);
    expect(line.length).toBeGreaterThan(MB);
    let parseMs = Infinity;
    for (let i = 0; i < 3; i++) {
      const t0 = performance.now();
      JSON.parse(line);
      parseMs = Math.min(parseMs, performance.now() - t0);
    }
    // Best of three (a refused line changes nothing): a busy machine's pause is not the route's cost.
    let ingestMs = Infinity;
    let r = await post(app, line);
    for (let i = 0; i < 3; i++) {
      const t0 = performance.now();
      r = await post(app, line);
      ingestMs = Math.min(ingestMs, performance.now() - t0);
    }
    expect(r.statusCode).toBe(200);
    expect(r.json()).toMatchObject({ accepted: 0, rejected: 1 });
    expect(r.json().errors[0].message).toContain(field);
    console.log(`1 MB hostile ${field}: ingest ${ingestMs.toFixed(1)} ms, JSON.parse alone ${parseMs.toFixed(1)} ms`);
    // Inject's own overhead is a few ms whatever the body: a floor, not the bound.
    expect(ingestMs).toBeLessThan(20 * parseMs + 50);
  });

  it(`a frame of ${FRAME_TEXT_MAX} characters is kept, one more is refused`, async ({ app }) => {
    sqliteOf(app.store).runs.insertRun(newRun('hs'));
    app.hub.open('hs', null);
    const at = 'f'.repeat(FRAME_TEXT_MAX);
    const r = await post(app, [stallLine(at), stallLine(at + 'g'), stallLine('w', '/' + at)].join('\n'));
    expect(r.json()).toMatchObject({ accepted: 1, rejected: 2 });
    expect(r.json().errors.map((e: { line: number; message: string }) => [e.line, e.message])).toEqual([
      [2, expect.stringContaining('report.stack.0.function')],
      [3, expect.stringContaining('report.stack.0.file')],
    ]);
  });
});
