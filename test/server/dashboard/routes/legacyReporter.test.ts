/**
 * An older `stallscope bench --report-to` (protocol 3) posts the old names:
 * `request.not_dispatched`, `requests.not_dispatched`, `counts.notDispatched`
 * and `failFastTripped` (docs/design.md#legacy-names). Its batches are
 * accepted, and the run reads back exactly as the same run posted under
 * today's names: counts, summary, verdict, events and request rows.
 * Caught: the ingest's mapping removed (the old batch is refused whole) or
 * partial (the run's unsent requests counted 0, its breaker read untripped).
 */
import { describe, expect } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { test as it } from '#test/helpers/fixtures.ts';
import { waitFor } from '#test/helpers/waitFor.ts';
import { hangRunEvents } from '#test/helpers/sampleEvents.ts';
import type { RunEvent } from '#shared/protocol/protocol.ts';
import { asProtocol3 } from '#test/helpers/legacyNames.ts';

/** A fail-fast run whose two unsent requests end one event each, or together in one range. */
function hangRun(runId: string, range: boolean): RunEvent[] {
  const events = hangRunEvents(runId).filter((e) => e.type !== 'telemetry');
  if (!range) return events;
  const at = events.findIndex((e) => e.type === 'request.unsent');
  const rest = events.filter((e) => e.type !== 'request.unsent');
  rest.splice(at, 0, {
    type: 'requests.unsent',
    t: 4011,
    from: 4,
    to: 6,
    error: 'not dispatched: x',
    stoppedBy: 'breaker',
  });
  return rest;
}

async function report(app: FastifyInstance, runId: string, events: unknown[]): Promise<number[]> {
  await app.inject({ method: 'POST', url: '/api/runs/external', payload: { runId, config: { failFast: true } } });
  const codes: number[] = [];
  for (const batch of [events.slice(0, 6), events.slice(6)]) {
    const r = await app.inject({ method: 'POST', url: `/api/runs/${runId}/events`, payload: { events: batch } });
    codes.push(r.statusCode);
  }
  return codes;
}

/** What the dashboard shows of a run, its run id left out. */
async function shown(app: FastifyInstance, runId: string) {
  await waitFor(async () => (await app.inject({ url: `/api/runs/${runId}` })).json().status === 'finished');
  const run = (await app.inject({ url: `/api/runs/${runId}` })).json();
  const listed = (await app.inject({ url: '/api/runs?limit=100' }))
    .json()
    .runs.find((r: { id: string }) => r.id === runId);
  const events = (await app.inject({ url: `/api/runs/${runId}/events` })).json().events as { event: RunEvent }[];
  const rows = (await app.inject({ url: `/api/runs/${runId}/requests?limit=100` })).json();
  const seen = {
    counts: run.counts,
    listed: listed.counts,
    summary: run.summary,
    verdict: run.verdict,
    types: events.map((e) => e.event.type),
    statuses: rows.requests.map((r: { status: string }) => r.status),
  };
  return JSON.parse(JSON.stringify(seen).replaceAll(`"${runId}-`, '"RUN-')) as typeof seen;
}

describe('a protocol-3 reporter', () => {
  for (const range of [false, true]) {
    it(`is accepted and shows the same run (${range ? 'unsent as one range' : 'unsent one by one'})`, async ({
      app,
    }) => {
      expect(await report(app, 'new', hangRun('new', range))).toEqual([200, 200]);
      const old = asProtocol3(hangRun('old', range));
      expect(JSON.stringify(old)).toMatch(range ? /"requests\.not_dispatched"/ : /"request\.not_dispatched"/);
      expect(await report(app, 'old', old)).toEqual([200, 200]);
      const now = await shown(app, 'new');
      expect(now.counts).toMatchObject({ unsent: 2, cancelledAfterTimeout: 3, failed: 4 });
      expect(now.summary).toMatchObject({ breakerTripped: true, counts: { unsent: 2 } });
      expect(now.types).toContain(range ? 'requests.unsent' : 'request.unsent');
      expect(await shown(app, 'old')).toEqual(now);
    });
  }
});
