/**
 * Exports tell the truth: a CSV cell cannot become a spreadsheet formula, and
 * the vLLM export of a run killed with SIGKILL (no summary was ever written)
 * still says how many requests completed and failed.
 */
import { sqliteOf } from '#test/helpers/sqliteStore.ts';
import { describe, expect } from 'vitest';
import { test as it } from '#test/helpers/fixtures.ts';
import { csvCell } from '#server/dashboard/export/csv.ts';
import { SqliteStore } from '#server/dashboard/store/sqlite/sqliteStore.ts';
import { Hub } from '#server/dashboard/hub/hub.ts';
import { recordRun } from '#test/helpers/dashboardApp.ts';
import { completedRequest, newRun, outcome } from '#test/helpers/sampleEvents.ts';

describe('CSV export', () => {
  it('neutralises cells a spreadsheet would evaluate (=, +, -, @, tab, CR) and leaves numbers alone', async ({
    app,
  }) => {
    for (const lead of ['=', '+', '-', '@', '\t', '\r'])
      expect(csvCell(`${lead}HYPERLINK("x")`).replace(/^"/, '')).toMatch(/^'/);
    expect(csvCell('=1+1')).toBe("'=1+1");
    expect(csvCell(-1.5)).toBe('-1.5');
    expect(csvCell('plain')).toBe('plain');
    recordRun(app.hub, 'c1', [
      ...completedRequest('c1', 0),
      {
        type: 'request.failed',
        t: 9,
        outcome: outcome('c1', 1, 'failed', { error: '=cmd|" /C calc"!A0' }),
      },
    ]);
    const body = (await app.inject({ url: '/api/runs/c1/export?format=csv' })).body;
    const line = body.split('\r\n').find((l) => l.startsWith('1,'))!;
    expect(line.endsWith(`"'=cmd|"" /C calc""!A0"`)).toBe(true);
  });
});

describe('vLLM export of a run killed by SIGKILL', () => {
  it('recomputes completed and failed from the stored requests', async ({ tempDir: dir, newApp }) => {
    // A dashboard that dies mid-run: events committed, never finalized, no summary.
    const store = new SqliteStore({ dataDir: dir });
    const hub = new Hub(store);
    store.runs.insertRun(newRun('k1', { numPrompts: 5 }));
    hub.open('k1', null);
    for (let i = 0; i < 3; i++) for (const e of completedRequest('k1', i)) hub.append('k1', e);
    hub.append('k1', { type: 'request.failed', t: 20, outcome: outcome('k1', 3, 'failed', { error: 'HTTP 500' }) });
    store.writer.flush();
    const { checkpointer } = store as unknown as { checkpointer: { stop(): void; exited: Promise<void> } };
    checkpointer.stop();
    store.db.close(); // no finalize, no summary: what a SIGKILL leaves behind
    // A killed process's threads are gone too: this one's connection must not still be touching the
    // folder's -wal/-shm files when the test removes it (ENOTEMPTY in a CI run).
    await checkpointer.exited;

    const app = await newApp({ dataDir: dir });
    expect(sqliteOf(app.store).runs.get('k1')!.status).toBe('interrupted');
    const j = (await app.inject({ url: '/api/runs/k1/export?format=vllm' })).json() as Record<string, unknown>;
    expect(j.completed).toBe(3);
    expect(j.failed).toBe(1);
  });
});
