/**
 * Moves runs between two stores (`stallscope db export` / `db import`,
 * docs/design.md#team-dashboard): each run's row (pinned and pruned marks too), request rows and unsent
 * ranges, events (with their seqs), stall reports (with their fingerprints) and result, through
 * the store interface only, so any store can be either side. Idempotent: a
 * run the target already holds keeps its row, and rows, events and stall
 * reports already there are left as they are — moving twice changes nothing.
 * Each run moves on its own: one the target cannot hold (a NUL in a SQLite row, which PostgreSQL refuses) is
 * named with the reason, whatever of it was written is removed again, and the others move.
 */
import type { NewRun, RunUpdate, StoredRunRow } from './records.ts';
import type { DashboardStore } from './storeApi.ts';
import { sql } from 'kysely';
import { findUnstorable } from '../../../../shared/storage/storable.ts';
import { resultParts } from './resultParts.ts';

const PAGE = 5000;

/** Moves one run; returns false when the source has no such run. */
export async function moveRun(from: DashboardStore, to: DashboardStore, id: string): Promise<boolean> {
  const run = await from.runReads.get(id);
  if (!run) return false;
  const unstorable = unstorableColumn(run, await from.admin.stallRows(id));
  if (unstorable) throw new Error(unstorable);
  if (!(await to.runReads.exists(id))) {
    const n: NewRun = {
      id,
      source: run.source,
      status: run.status,
      label: run.label,
      model: run.model,
      target: run.target,
      dataset: run.dataset,
      numPrompts: run.numPrompts,
      maxConcurrency: run.maxConcurrency,
      requestRate: run.requestRate,
      failFast: run.failFast,
      createdAtMs: run.createdAtMs,
      startedAtMs: run.startedAtMs,
      spec: run.spec ?? undefined,
      config: run.config ?? undefined,
      metadata: run.metadata,
    };
    const f: RunUpdate = {
      verdict: run.verdict,
      finishedAtMs: run.finishedAtMs,
      summary: run.summary ?? undefined,
      importInfo: run.importInfo ?? undefined,
      error: run.error,
      state: run.state ?? undefined,
      firstTimeout: run.firstTimeout ?? undefined,
      serverIdentity: run.serverIdentity ?? undefined,
    };
    await to.runWrites.insertWhole(n, f);
    await moveRetentionFacts(from, to, id);
  }
  await moveRequests(from, to, id);
  for (let after = 0; ;) {
    const page = await from.runReads.eventsAfter(id, after, PAGE);
    await to.admin.writeEvents(id, page);
    if (page.length < PAGE) break;
    after = page[page.length - 1].seq;
  }
  await to.admin.writeStallRows(id, await from.admin.stallRows(id));
  await moveResult(from, to, id);
  return true;
}

/**
 * The result as stored text, never parsed: a parse and a re-serialisation held ~7× the result in memory (a 100 MB
 * result took the move to 756 MB). A result stored whole is written in parts (`resultParts` slices share its
 * string); one stored in parts is copied a part at a time. Nothing is written when the target holds a result or
 * the source's parts are incomplete (a result counts only once all its parts are in).
 */
async function moveResult(from: DashboardStore, to: DashboardStore, id: string): Promise<void> {
  const held = await to.kysely
    .selectFrom('runs')
    .select(['result_parts', sql<number>`CASE WHEN result_json IS NULL THEN 0 ELSE 1 END`.as('whole')])
    .where('id', '=', id)
    .executeTakeFirst();
  if (held && (Number(held.whole) === 1 || held.result_parts !== null)) return;
  const stored = await from.kysely
    .selectFrom('runs')
    .select(['result_json', 'result_parts'])
    .where('id', '=', id)
    .executeTakeFirst();
  if (stored?.result_json) {
    const parts = resultParts(stored.result_json);
    for (let p = 0; p < parts.length; p++) await to.runWrites.writeResultPart(id, p, parts[p]);
    await to.runWrites.update(id, { resultParts: parts.length });
  } else if (stored?.result_parts) {
    for (let p = 0; p < stored.result_parts; p++) {
      const part = await from.kysely
        .selectFrom('run_results')
        .select('text')
        .where('run_id', '=', id)
        .where('part', '=', p)
        .executeTakeFirst();
      if (!part) return;
      await to.runWrites.writeResultPart(id, p, part.text);
    }
    await to.runWrites.update(id, { resultParts: stored.result_parts });
  }
}

/**
 * The request rows as stored, and the unsent ranges as ranges (docs/design.md#bulk-unsent): a page read would
 * synthesise a range's rows and store a million rows where one record was. Written once in Kysely for both stores.
 */
async function moveRequests(from: DashboardStore, to: DashboardStore, id: string): Promise<void> {
  for (let after = -1; ;) {
    const page = await from.kysely
      .selectFrom('requests')
      .select(['idx', 'row_json', 'status'])
      .where('run_id', '=', id)
      .where('idx', '>', after)
      .orderBy('idx')
      .limit(PAGE)
      .execute();
    if (page.length)
      await to.runWrites.writeRows(id, {
        index: page.map((r) => Number(r.idx)),
        json: page.map((r) => r.row_json),
        status: page.map((r) => r.status),
      });
    if (page.length < PAGE) break;
    after = Number(page[page.length - 1].idx);
  }
  const ranges = await from.kysely.selectFrom('request_ranges').selectAll().where('run_id', '=', id).execute();
  if (ranges.length)
    await to.kysely
      .insertInto('request_ranges')
      .values(ranges)
      .onConflict((oc) => oc.columns(['run_id', 'from_idx']).doNothing())
      .execute();
}

/**
 * A pinned run stays pinned, a pruned one says so (docs/design.md#retention). The reporting token is not carried:
 * tokens belong to their dashboard's database, and the moved run is fed by no token of the target's.
 */
async function moveRetentionFacts(from: DashboardStore, to: DashboardStore, id: string): Promise<void> {
  const facts = await from.retention.retentionFacts(id);
  if (!facts) return;
  if (facts.pinned) await to.retention.setPinned(id, true);
  if (facts.prunedAtMs !== null) await to.retention.markPruned(id, facts.prunedAtMs);
}

/**
 * What of a run's plain text columns no database can store (shared/storage/storable.ts), as `field: reason`;
 * null when all can be. Its JSON columns escape anything; SQLite stores a NUL that PostgreSQL refuses.
 */
function unstorableColumn(run: StoredRunRow, stalls: readonly { phase: string }[]): string | null {
  const { id, source, status, label, model, target, dataset, requestRate, error, metadata } = run;
  const text = { id, source, status, label, model, target, dataset, requestRate, error, metadata };
  const bad = findUnstorable({ ...text, stallReports: stalls.map((s) => ({ phase: s.phase })) });
  return bad ? `${bad.pointer.slice(1).replace(/\//g, '.')} ${bad.message}` : null;
}

/** A run that could not be moved, and why. */
export interface SkippedRun {
  id: string;
  reason: string;
}

/**
 * Moves every run (oldest first), each on its own: a run that fails is skipped — what of it this move wrote is
 * deleted from the target again, so a retry starts clean — and the rest are moved. The ids moved and those skipped.
 */
export async function moveRuns(
  from: DashboardStore,
  to: DashboardStore,
  progress: (id: string, i: number, of: number) => void = () => undefined,
): Promise<{ moved: string[]; skipped: SkippedRun[] }> {
  const ids = await from.admin.allRunIds();
  const moved: string[] = [];
  const skipped: SkippedRun[] = [];
  for (let i = 0; i < ids.length; i++) {
    const id = ids[i];
    // A run the target held before is left as it was, whatever happens to this move of it.
    const held = await to.runReads.exists(id).catch(() => true);
    try {
      await moveRun(from, to, id);
      moved.push(id);
    } catch (e) {
      if (!held) await to.runWrites.delete(id).catch(() => false);
      skipped.push({ id, reason: e instanceof Error ? e.message : String(e) });
    }
    progress(id, i + 1, ids.length);
  }
  return { moved, skipped };
}
