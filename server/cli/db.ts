/**
 * `stallscope db export` / `stallscope db import`: moves every run between
 * two stores — a laptop's SQLite data folder and a team's PostgreSQL
 * (docs/design.md#team-dashboard). Idempotent: runs already in the target
 * are left as they are, so running it twice changes nothing. A data folder
 * is locked while it is read or written (a dashboard serving it refuses), and
 * created when new. A run that cannot be moved is named on stderr with the
 * reason and skipped, leaving nothing of it in the target; the rest are moved,
 * and the command exits 1.
 */
import { mkdirSync } from 'node:fs';
import { basename, dirname } from 'node:path';
import { parseArgs } from 'node:util';
import { StallscopeError } from '../../shared/errors.ts';
import { defaultDataDir } from '../dashboard/store/sqlite/db.ts';
import { lockDataDir, type DataDirLock } from '../dashboard/store/sqlite/dataDirLock.ts';
import { isDbUrl, redactDbUrl } from '../dashboard/store/pg/dbUrl.ts';
import { openStore } from '../dashboard/store/openStore.ts';
import { moveRuns } from '../dashboard/store/common/moveRuns.ts';
import type { DashboardStore } from '../dashboard/store/common/storeApi.ts';

const USAGE = `usage: stallscope db export --to WHERE [--data-dir DIR | --database URL]
       stallscope db import --from WHERE [--data-dir DIR | --database URL]

Moves every run (its row, request rows, events, stall reports and result)
from one store into another; runs the target already holds are left as they
are, so a second run changes nothing. A run the target cannot hold is named
with the reason and skipped (nothing of it is left there), the rest are
moved, and the command exits 1.

  export               from the dashboard's store into WHERE
  import               from WHERE into the dashboard's store
  --to / --from WHERE  a PostgreSQL URL (postgres://user:pass@host:5432/db)
                       or a data folder (its stallscope.db; created if new)
  --data-dir DIR       the dashboard's data folder (default $XDG_DATA_HOME/
                       stallscope or ~/.local/share/stallscope)
  --database URL       the dashboard's PostgreSQL instead (default
                       $STALLSCOPE_DATABASE_URL)`;

interface Opened {
  store: DashboardStore;
  lock: DataDirLock | null;
  name: string;
}

/** A store at WHERE: a PostgreSQL URL, or a data folder (locked while it is used). */
async function openWhere(where: string): Promise<Opened> {
  if (isDbUrl(where))
    return { store: await openStore({ dataDir: null, database: where }), lock: null, name: redactDbUrl(where) };
  const dir = basename(where) === 'stallscope.db' ? dirname(where) : where;
  // A new folder is made here, not by the store: the lock file goes in it first.
  mkdirSync(dir, { recursive: true });
  const lock = lockDataDir(dir);
  try {
    return { store: await openStore({ dataDir: dir, database: null }), lock, name: dir };
  } catch (e) {
    lock.release();
    throw e;
  }
}

async function close(o: Opened | null): Promise<void> {
  if (!o) return;
  await o.store.close();
  o.lock?.release();
}

export async function run(argv: string[]): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        to: { type: 'string' },
        from: { type: 'string' },
        'data-dir': { type: 'string' },
        database: { type: 'string' },
        help: { type: 'boolean', short: 'h', default: false },
      },
    });
  } catch (e) {
    console.error(`stallscope db: ${(e as Error).message}\n\n${USAGE}`);
    return 2;
  }
  const { values: a, positionals } = parsed;
  if (a.help) {
    console.log(USAGE);
    return 0;
  }
  const verb = positionals[0];
  const other = verb === 'export' ? a.to : verb === 'import' ? a.from : undefined;
  if ((verb !== 'export' && verb !== 'import') || positionals.length !== 1 || !other) {
    console.error(`stallscope db: say export --to WHERE or import --from WHERE\n\n${USAGE}`);
    return 2;
  }
  const own = a.database ?? process.env.STALLSCOPE_DATABASE_URL ?? a['data-dir'] ?? defaultDataDir();
  let from: Opened | null = null;
  let to: Opened | null = null;
  try {
    from = await openWhere(verb === 'export' ? own : other);
    to = await openWhere(verb === 'export' ? other : own);
    const { moved, skipped } = await moveRuns(from.store, to.store);
    for (const s of skipped) console.error(`stallscope db: run ${s.id} was not moved: ${s.reason}`);
    console.log(`stallscope db: ${moved.length} run(s) from ${from.name} are in ${to.name}`);
    if (!skipped.length) return 0;
    console.error(`stallscope db: ${skipped.length} run(s) skipped (named above); the others were moved`);
    return 1;
  } catch (e) {
    const err = e as Error;
    console.error(`stallscope db: ${err.message}`);
    return e instanceof StallscopeError ? e.exitCode : 1;
  } finally {
    await close(to);
    await close(from);
  }
}
