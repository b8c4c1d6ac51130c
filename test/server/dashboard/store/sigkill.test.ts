import { describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { SqliteStore } from '#server/dashboard/store/sqlite/sqliteStore.ts';

describe('a dashboard killed with SIGKILL mid-run', () => {
  it('loses at most the last batch; on restart the run is interrupted with its requests and stall report', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'stallscope-kill-'));
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', fileURLToPath(new URL('./killChild.ts', import.meta.url)), dir],
      {
        stdio: ['ignore', 'pipe', 'inherit'],
      },
    );
    const exited = new Promise<void>((r) => child.once('exit', () => r()));
    let committed = 0;
    let batches = 0;
    await new Promise<void>((resolve, reject) => {
      child.stdout.setEncoding('utf8');
      child.stdout.on('data', (d: string) => {
        for (const line of d.trim().split('\n')) {
          const m = /^committed (\d+)/.exec(line);
          if (m) committed = Number(m[1]);
          if (m && ++batches === 5) {
            child.kill('SIGKILL');
            resolve();
          }
        }
      });
      child.on('exit', () => reject(new Error('child exited before it was killed')));
      child.on('error', reject);
    });
    await exited;
    expect(child.signalCode).toBe('SIGKILL');
    const store = new SqliteStore({ dataDir: dir });
    expect(store.admin.recoverInterruptedNow(Date.now())).toEqual(['killed']);
    const run = store.runs.get('killed')!;
    expect(run.status).toBe('interrupted');
    // Every event reported committed is there (+1 for the appended run.status).
    expect(run.lastSeq).toBeGreaterThanOrEqual(committed + 1);
    const { total, requests } = await store.runReads.requests('killed', 0, 100_000);
    expect(total).toBeGreaterThanOrEqual(Math.floor((committed - 1) / 4));
    expect(requests.every((r) => r.status === 'completed')).toBe(true);
    expect(store.runs.stallReports('killed')).toHaveLength(1);
    store.closeNow();
  });
});
