/**
 * Opens the SQLite database in the data directory (created on first start),
 * in WAL mode so readers (REST) never wait for the batched writer, with
 * foreign keys on so deleting a run deletes all its rows. A database that
 * fails SQLite's integrity check is refused with a message naming the file:
 * serving it would answer requests with 500s and could lose more data.
 */
import Database from 'better-sqlite3';
import { mkdirSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { StallscopeError } from '../../../../shared/errors.ts';
import { migrate } from './migrations.ts';

/** Per-user default: $XDG_DATA_HOME/stallscope, else ~/.local/share/stallscope. */
export function defaultDataDir(env: NodeJS.ProcessEnv = process.env): string {
  const base =
    env.XDG_DATA_HOME && env.XDG_DATA_HOME.startsWith('/') ? env.XDG_DATA_HOME : join(homedir(), '.local', 'share');
  return join(base, 'stallscope');
}

export const DB_FILE = 'stallscope.db';

/** What to do with a database we refuse: move it aside (with its WAL), and the dashboard starts empty. */
function moveAsideAdvice(file: string): string {
  return `move it aside (mv ${file} ${file}.corrupt; also ${file}-wal and ${file}-shm if present) and start again: the dashboard then starts with an empty database`;
}

/** SQLite's result codes that mean "these bytes are not a sound database". */
const CORRUPT_CODES = new Set(['SQLITE_CORRUPT', 'SQLITE_NOTADB', 'SQLITE_CORRUPT_VTAB', 'SQLITE_CORRUPT_SEQUENCE']);

function isCorruption(e: unknown): boolean {
  const code = (e as { code?: unknown }).code;
  return typeof code === 'string' && (CORRUPT_CODES.has(code) || code.startsWith('SQLITE_CORRUPT'));
}

/** `PRAGMA quick_check` (O(N), no index cross-checks); throws STORE_CORRUPT naming the file and the first problem. */
export function checkIntegrity(db: Database.Database, file: string): void {
  const rows = db.pragma('quick_check(5)') as { quick_check: string }[];
  const problems = rows.map((r) => r.quick_check).filter((m) => m !== 'ok');
  if (problems.length) {
    throw new StallscopeError('STORE_CORRUPT', `${file}: ${firstProblem(problems)}; ${moveAsideAdvice(file)}`);
  }
}

/**
 * quick_check's first finding on one line: its rows can span several lines
 * ("*** in database main ***" then one line per page), and the refusal is
 * promised as one line naming the file and what to do.
 */
export function firstProblem(problems: readonly string[]): string {
  const lines = problems
    .join('\n')
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '' && !/^\*\*\* in database \w+ \*\*\*$/.test(l));
  const first = lines[0] ?? 'failed';
  const shown = first.length > 200 ? `${first.slice(0, 200)}…` : first;
  return `database is corrupt (${shown}${lines.length > 1 ? `, and ${lines.length - 1} more finding(s)` : ''})`;
}

/** `dataDir` null → an in-memory database (tests). */
export function openDb(dataDir: string | null): Database.Database {
  if (dataDir === null) {
    const db = new Database(':memory:');
    db.pragma('foreign_keys = ON');
    migrate(db);
    return db;
  }
  mkdirSync(dataDir, { recursive: true });
  const file = join(dataDir, DB_FILE);
  let db: Database.Database | null = null;
  try {
    db = new Database(file);
    db.pragma('journal_mode = WAL');
    // NORMAL in WAL mode: a committed batch survives a process crash (SIGKILL); only power loss can drop the last one.
    db.pragma('synchronous = NORMAL');
    db.pragma('foreign_keys = ON');
    db.pragma('busy_timeout = 5000');
    checkIntegrity(db, file);
    migrate(db);
    return db;
  } catch (e) {
    db?.close();
    if (e instanceof StallscopeError) throw e;
    if (isCorruption(e)) {
      throw new StallscopeError('STORE_CORRUPT', `${file}: ${(e as Error).message}; ${moveAsideAdvice(file)}`);
    }
    throw new StallscopeError('STORE_UNREADABLE', `${file}: ${(e as Error).message}`);
  }
}
