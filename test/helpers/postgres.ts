/**
 * A throwaway PostgreSQL 15 cluster for the store's tests: `initdb` in a temp
 * folder (as the `postgres` user when running as root — initdb refuses root),
 * started with `pg_ctl` on a free port with its unix socket in that folder,
 * stopped and removed at the end. Each test takes its own database
 * (`freshDatabase`), so tests share one cluster yet never see each other's
 * rows. `stop()`/`start()` are the outage tests' server going away and coming
 * back (pg_ctl stop -m fast). Debian's `postgresql` package (.ci/setup).
 */
import { execFileSync } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';

const BIN = process.env.STALLSCOPE_PG_BIN ?? '/usr/lib/postgresql/15/bin';

export interface PgCluster {
  /** postgres://… of the cluster's `postgres` database (superuser, trust auth on 127.0.0.1). */
  adminUrl: string;
  port: number;
  /** A new, empty database; its URL. */
  freshDatabase(): Promise<string>;
  /** pg_ctl stop -m fast: every connection is cut. */
  stop(): void;
  start(): void;
  destroy(): void;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const a = s.address();
      s.close(() => resolve(typeof a === 'object' && a ? a.port : 0));
    });
  });
}

/** Runs a PostgreSQL binary, as the `postgres` user when this process is root. */
function pgBin(bin: string, args: string[]): void {
  const root = process.getuid?.() === 0;
  const [cmd, argv] = root ? ['runuser', ['-u', 'postgres', '--', join(BIN, bin), ...args]] : [join(BIN, bin), args];
  execFileSync(cmd, argv, { stdio: ['ignore', 'pipe', 'pipe'], timeout: 60_000 });
}

let counter = 0;

export async function startPostgres(): Promise<PgCluster> {
  if (!existsSync(join(BIN, 'initdb')))
    throw new Error(`PostgreSQL 15 is not installed (${BIN}/initdb): apt-get install postgresql (see .ci/setup)`);
  const dir = mkdtempSync(join(tmpdir(), 'stallscope-pg-'));
  const data = join(dir, 'data');
  if (process.getuid?.() === 0) {
    const uid = Number(execFileSync('id', ['-u', 'postgres']).toString().trim());
    const gid = Number(execFileSync('id', ['-g', 'postgres']).toString().trim());
    chownSync(dir, uid, gid);
  }
  chmodSync(dir, 0o700);
  pgBin('initdb', ['-D', data, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--no-sync', '--locale=C']);
  const port = await freePort();
  const opts = [
    `-p ${port}`,
    `-k ${dir}`,
    '-h 127.0.0.1',
    '-c fsync=off',
    '-c synchronous_commit=off',
    '-c full_page_writes=off',
    '-c max_connections=200',
  ].join(' ');
  const start = () => pgBin('pg_ctl', ['-D', data, '-o', opts, '-l', join(dir, 'log'), '-w', '-t', '30', 'start']);
  const stop = () => pgBin('pg_ctl', ['-D', data, '-m', 'fast', '-w', '-t', '30', 'stop']);
  start();
  const adminUrl = `postgres://postgres@127.0.0.1:${port}/postgres`;
  return {
    adminUrl,
    port,
    async freshDatabase() {
      const name = `t${process.pid}_${++counter}`;
      const c = new pg.Client({ connectionString: adminUrl });
      await c.connect();
      try {
        await c.query(`CREATE DATABASE ${name}`);
      } finally {
        await c.end();
      }
      return `postgres://postgres@127.0.0.1:${port}/${name}`;
    },
    stop,
    start,
    destroy() {
      try {
        stop();
      } catch {
        // already stopped
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
