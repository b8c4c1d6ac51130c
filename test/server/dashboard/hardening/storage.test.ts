/**
 * The dashboard tells the truth about its storage: a corrupt database or a
 * file that is not one stops `stallscope serve` at start with one line naming
 * the file and what to do; a second dashboard on a data directory in use exits
 * at once naming the first one's pid and port; every 500 is logged with its cause.
 * Real files, real `stallscope serve` processes.
 */
import { sqliteOf } from '#test/helpers/sqliteStore.ts';
import { afterEach, describe, expect } from 'vitest';
import { test as it } from '#test/helpers/fixtures.ts';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { closeSync, openSync, readFileSync, statSync, writeFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { SqliteStore } from '#server/dashboard/store/sqlite/sqliteStore.ts';
import { LOCK_FILE } from '#server/dashboard/store/sqlite/dataDirLock.ts';
import { newRun } from '#test/helpers/sampleEvents.ts';

const BIN = fileURLToPath(new URL('../../../../bin/stallscope.js', import.meta.url));
const children: ChildProcess[] = [];

afterEach(async () => {
  for (const c of children.splice(0)) {
    if (c.exitCode === null && c.signalCode === null) {
      const gone = new Promise((r) => c.once('exit', r));
      c.kill('SIGKILL');
      await gone;
    }
  }
});

/** `stallscope serve` on a data dir; resolves on its listening line or its exit. */
function serve(dataDir: string) {
  const child = spawn(process.execPath, [BIN, 'serve', '--port', '0', '--data-dir', dataDir], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  let out = '';
  let err = '';
  child.stdout!.setEncoding('utf8').on('data', (d: string) => (out += d));
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (err += d));
  const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
  const listening = new Promise<string | null>((resolve) => {
    child.stdout!.on('data', () => {
      const m = /listening on (http:\/\/\S+)/.exec(out);
      if (m) resolve(m[1]);
    });
    void exited.then(() => resolve(null));
  });
  return { child, exited, listening, stderr: () => err };
}

/** A real database with a few runs, closed cleanly (its checkpointer thread gone too). */
async function populatedDb(dir: string): Promise<string> {
  const store = new SqliteStore({ dataDir: dir });
  for (let i = 0; i < 200; i++) store.runs.insertRun(newRun(`r${i}`, { label: 'x'.repeat(300) }));
  const { checkpointer } = store as unknown as { checkpointer: { stop(): void; exited: Promise<void> } };
  checkpointer.stop();
  store.db.pragma('wal_checkpoint(TRUNCATE)');
  store.db.close();
  // Its connection must not touch the files the test then corrupts or removes.
  await checkpointer.exited;
  return join(dir, 'stallscope.db');
}

describe('a corrupt database', () => {
  it('junk written into its pages: serve refuses to start, naming the file and what to do', async ({
    tempDir: dir,
  }) => {
    const file = await populatedDb(dir);
    const size = statSync(file).size;
    expect(size).toBeGreaterThan(8 * 4096);
    const fd = openSync(file, 'r+');
    // Pages 3..6 (b-tree pages of the tables) overwritten with junk; the header page stays intact.
    writeSync(fd, Buffer.alloc(4 * 4096, 0xa5), 0, 4 * 4096, 2 * 4096);
    closeSync(fd);
    const s = serve(dir);
    expect(await s.listening).toBeNull();
    expect(await s.exited).not.toBe(0);
    const msg = s.stderr();
    expect(msg).toMatch(/database is corrupt/);
    expect(msg).toContain(file);
    expect(msg).toMatch(/move it aside/);
    expect(msg).not.toMatch(/\n\s+at /); // no stack trace
    // One line, as the README promises: quick_check's rows span several.
    expect(msg.trim().split('\n')).toHaveLength(1);
  }, 20_000);

  it('a text file given as the database: a one-line message, no stack trace', async ({ tempDir: dir }) => {
    writeFileSync(join(dir, 'stallscope.db'), 'these are my notes, not a database\n'.repeat(200));
    const s = serve(dir);
    expect(await s.listening).toBeNull();
    expect(await s.exited).not.toBe(0);
    const lines = s.stderr().trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/stallscope\.db/);
    expect(lines[0]).toMatch(/not a database|corrupt/);
  }, 20_000);

  it('every 500 is logged with its cause', async ({ newApp }) => {
    const logged: string[] = [];
    const app = await newApp({ logFailure: (l) => logged.push(l) });
    sqliteOf(app.store).runs.list = () => {
      throw new Error('SQLITE_IOERR: disk I/O error on page 7');
    };
    const r = await app.inject({ url: '/api/runs' });
    expect(r.statusCode).toBe(500);
    expect(r.json()).toEqual({ code: 'INTERNAL', message: 'internal error' });
    expect(logged.join('\n')).toMatch(/GET \/api\/runs failed \(500\): Error: SQLITE_IOERR: disk I\/O error on page 7/);
  });
});

describe('two dashboards on one data directory', () => {
  it('the second exits at once naming the pid and port of the first, which keeps running', async ({ tempDir: dir }) => {
    const first = serve(dir);
    const url = await first.listening;
    expect(url).not.toBeNull();
    const port = new URL(url!).port;
    const second = serve(dir);
    expect(await second.listening).toBeNull();
    expect(await second.exited).not.toBe(0);
    expect(second.stderr()).toContain(`pid ${first.child.pid}`);
    expect(second.stderr()).toContain(`:${port}`);
    expect((await fetch(`${url}/api/health`)).status).toBe(200);
    first.child.kill('SIGTERM');
    expect(await first.exited).toBe(0);
    expect(() => statSync(join(dir, LOCK_FILE))).toThrow(); // released on a clean stop
  }, 30_000);

  it('a stale lock (its owner is gone) is taken over', async ({ tempDir: dir }) => {
    const dead = spawnSync(process.execPath, ['-e', 'process.pid']).pid;
    writeFileSync(join(dir, LOCK_FILE), JSON.stringify({ pid: dead, port: 1, host: '127.0.0.1', startedAtMs: 0 }));
    const s = serve(dir);
    expect(await s.listening, s.stderr()).not.toBeNull();
    expect(JSON.parse(readFileSync(join(dir, LOCK_FILE), 'utf8')).pid).toBe(s.child.pid);
    s.child.kill('SIGTERM');
    expect(await s.exited, `${s.stderr()} / ${s.child.signalCode}`).toBe(0);
  }, 20_000);
});
