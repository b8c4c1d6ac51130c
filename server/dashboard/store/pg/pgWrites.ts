/**
 * The PostgreSQL store's one-off writes: a new run (with its metadata rows
 * and the process that owns it) and a run's columns, by the same rules as
 * the SQLite store's (common/runRows.ts).
 */
import type pg from 'pg';
import type { NewRun, RunUpdate } from '../common/records.ts';
import { RUN_INSERT_COLUMNS, RUN_UPDATE_COLUMNS, RUN_UPDATE_JSON, runInsertValues } from '../common/runRows.ts';

export async function insertRunSql(c: pg.ClientBase, n: NewRun, owner: number): Promise<void> {
  const values = [...runInsertValues(n), owner];
  await c.query(
    `INSERT INTO runs (${RUN_INSERT_COLUMNS}, owner) VALUES (${values.map((_, i) => `$${i + 1}`).join(',')})`,
    values,
  );
  const keys = Object.keys(n.metadata);
  if (keys.length)
    await c.query(`INSERT INTO run_metadata (run_id, key, value) SELECT $1, * FROM unnest($2::text[], $3::text[])`, [
      n.id,
      keys,
      keys.map((k) => n.metadata[k]),
    ]);
}

/** Sets the given columns (names from RUN_UPDATE_COLUMNS, never input). `lastSeq` only ever raises it. */
export async function updateSql(c: pg.ClientBase, id: string, f: RunUpdate): Promise<void> {
  const sets: string[] = [];
  const vals: unknown[] = [id];
  for (const [k, v] of Object.entries(f) as [keyof RunUpdate, unknown][]) {
    if (v === undefined || !RUN_UPDATE_COLUMNS[k]) continue;
    vals.push(RUN_UPDATE_JSON.has(k) ? JSON.stringify(v) : v);
    // Another process may have numbered more events since: the stored last seq never goes back.
    sets.push(
      k === 'lastSeq' ? `last_seq = GREATEST(last_seq, $${vals.length})` : `${RUN_UPDATE_COLUMNS[k]} = $${vals.length}`,
    );
  }
  if (f.result !== undefined) {
    // A result given whole replaces one stored in parts.
    sets.push('result_parts = NULL');
    await c.query('DELETE FROM run_results WHERE run_id = $1', [id]);
  }
  if (sets.length) await c.query(`UPDATE runs SET ${sets.join(', ')} WHERE id = $1`, vals);
}
