/**
 * Opens the SQLite database in the data directory (created on first start),
 * in WAL mode so readers (REST) never wait for the batched writer, with
 * foreign keys on so deleting a run deletes all its rows.
 */
import Database from 'better-sqlite3';
import { mkdirSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { migrate } from './migrations.ts';

/** Per-user default: $XDG_DATA_HOME/stallscope, else ~/.local/share/stallscope. */
export function defaultDataDir(env: NodeJS.ProcessEnv = process.env): string {
  const base =
    env.XDG_DATA_HOME && env.XDG_DATA_HOME.startsWith('/') ? env.XDG_DATA_HOME : join(homedir(), '.local', 'share');
  return join(base, 'stallscope');
}

export const DB_FILE = 'stallscope.db';

/** `dataDir` null → an in-memory database (tests). */
export function openDb(dataDir: string | null): Database.Database {
  let db: Database.Database;
  if (dataDir === null) {
    db = new Database(':memory:');
  } else {
    mkdirSync(dataDir, { recursive: true });
    db = new Database(join(dataDir, DB_FILE));
    db.pragma('journal_mode = WAL');
    // NORMAL in WAL mode: a committed batch survives a process crash (SIGKILL); only power loss can drop the last one.
    db.pragma('synchronous = NORMAL');
  }
  db.pragma('foreign_keys = ON');
  db.pragma('busy_timeout = 5000');
  migrate(db);
  return db;
}
