/**
 * Stall evidence is stored fingerprinted (docs/design.md#stall-fingerprints):
 * a watchdog report with its fingerprint beside it, the run's first
 * structural timeout with the phase telemetry placed it in, the target's
 * identity from run.started; and a database written before all this gets
 * them on migration.
 */
import { describe, expect, it } from 'vitest';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { SqliteStore } from '#server/dashboard/store/sqlite/sqliteStore.ts';
import { MIGRATIONS } from '#server/dashboard/store/sqlite/migrations.ts';
import { DB_FILE } from '#server/dashboard/store/sqlite/db.ts';
import { Hub } from '#server/dashboard/hub/hub.ts';
import { finalizeRun } from '#server/dashboard/runs/finalize.ts';
import { stallFingerprint } from '#shared/stalls/fingerprint.ts';
import type { RunEvent } from '#shared/protocol/protocol.ts';
import { hangRunEvents, newRun, outcome, stallReport } from '#test/helpers/sampleEvents.ts';

const tmp = () => mkdtempSync(join(tmpdir(), 'stallscope-evidence-'));
const HIFT = stallFingerprint('hift', [{ function: 'blockForever', file: 'server/repro/faults.ts' }]);

function record(store: SqliteStore, runId: string, events: RunEvent[]): void {
  const hub = new Hub(store);
  store.runs.insertRun(newRun(runId));
  hub.open(runId, null);
  for (const e of events) hub.append(runId, e);
  void finalizeRun(hub, runId, { status: 'finished' });
}

describe('stall evidence in the store', () => {
  it('keeps a watchdog report with its fingerprint and the first timeout with the phase it was blocked in', () => {
    const store = new SqliteStore({ dataDir: null });
    record(store, 'r1', hangRunEvents('r1'));
    const run = store.runs.get('r1')!;
    expect(store.runs.stallReports('r1').map((s) => s.fingerprint)).toEqual([HIFT]);
    // Request 2 was in op 5's hift phase when its total timeout fired: a phase-only fingerprint.
    expect(run.firstTimeout).toEqual({
      index: 2,
      requestId: 'r1-2',
      kind: 'total',
      t: 4011,
      phase: 'hift',
      fingerprint: stallFingerprint('hift', []),
    });
    store.closeNow();
  });

  it('only the first timeout is kept; a request queued behind the blocked op is placed in that op’s phase', () => {
    const store = new SqliteStore({ dataDir: null });
    const tele = (t: number, event: Record<string, unknown>): RunEvent =>
      ({ type: 'telemetry', t, event: { v: 1, ts: 1_000_000 + t, workerId: 0, ...event } }) as RunEvent;
    const timeout = (index: number, t: number): RunEvent => ({
      type: 'request.timed_out',
      t,
      kind: 'idle',
      outcome: outcome('r2', index, 'timed_out'),
    });
    const [started] = hangRunEvents('r2');
    const sent = (index: number): RunEvent[] => [
      { type: 'request.queued', t: 0, index, requestId: `r2-${index}` },
      { type: 'request.sent', t: 1, index, requestId: `r2-${index}`, attempt: 1 },
    ];
    record(store, 'r2', [
      started,
      ...sent(0),
      ...sent(1),
      // Request 1's first chunk was decoded by op 4; op 5 (request 0's chunk) then blocked in cfm.
      tele(10, { type: 'c2w.op.begin', opId: 4, requestIds: ['r2-1'], batchSize: 1 }),
      tele(11, { type: 'c2w.phase', opId: 4, requestIds: ['r2-1'], phase: 'hift', details: {} }),
      tele(12, { type: 'c2w.op.end', opId: 4, requestIds: ['r2-1'], durationMs: 2, ok: true }),
      tele(13, { type: 'c2w.op.begin', opId: 5, requestIds: ['r2-0'], batchSize: 1 }),
      tele(14, { type: 'c2w.phase', opId: 5, requestIds: ['r2-0'], phase: 'cfm', details: {} }),
      timeout(1, 5000), // waiting for its next chunk, behind op 5
      timeout(0, 5001),
    ]);
    expect(store.runs.get('r2')!.firstTimeout).toMatchObject({ index: 1, kind: 'idle', phase: 'cfm' });
    store.closeNow();
  });

  it("keeps the target's identity that run.started carried", () => {
    const store = new SqliteStore({ dataDir: null });
    const events = hangRunEvents('r3');
    const identity = { models: ['openbmb/MiniCPM-o-4_5'], version: '0.11.0', notes: [] };
    Object.assign(events[0], { serverIdentity: identity });
    record(store, 'r3', events);
    expect(store.runs.get('r3')!.serverIdentity).toEqual(identity);
    expect(store.runs.get('r3')!.firstTimeout).not.toBeNull();
    store.closeNow();
  });

  it('a schema-2 database gets fingerprints and first timeouts on migration; imports get no stall evidence', () => {
    const dir = tmp();
    const old = new Database(join(dir, DB_FILE));
    old.exec(MIGRATIONS[0] as string);
    old.exec(MIGRATIONS[1] as string);
    old.pragma('user_version = 2');
    const insertRun = old.prepare(
      `INSERT INTO runs (id, source, status, created_at_ms, started_at_ms, state_json) VALUES (?, ?, 'finished', 1, 2, ?)`,
    );
    const cause = {
      requestIndex: 4,
      requestId: 'old-4',
      kind: 'first_byte',
      elapsedS: 3,
      lastPhase: 'queued behind op 2 (hift)',
    };
    insertRun.run('old', 'cli', JSON.stringify({ breaker: { tripped: true, cause } }));
    insertRun.run('imp', 'import', null);
    const row = (runId: string, index: number, endT: number) =>
      JSON.stringify({ index, requestId: `${runId}-${index}`, status: 'timed_out', endT, timeoutKind: 'first_byte' });
    const insertRow = old.prepare(`INSERT INTO requests (run_id, idx, row_json, status) VALUES (?, ?, ?, 'timed_out')`);
    insertRow.run('old', 7, row('old', 7, 9000)); // ended later than request 4
    insertRow.run('old', 4, row('old', 4, 3000));
    insertRow.run('imp', 0, row('imp', 0, 10));
    old
      .prepare(
        `INSERT INTO stall_reports (run_id, worker_id, op_id, seq, phase, report_json) VALUES ('old', 0, 2, 5, 'hift', ?)`,
      )
      .run(JSON.stringify(stallReport('old', 2)));
    old.close();

    const store = new SqliteStore({ dataDir: dir });
    expect(store.runs.stallReports('old')[0].fingerprint).toEqual(HIFT);
    expect(store.runs.get('old')!.firstTimeout).toMatchObject({ index: 4, kind: 'first_byte', t: 3000, phase: 'hift' });
    expect(store.runs.get('imp')!.firstTimeout).toBeNull();
    store.closeNow();
  });
});
