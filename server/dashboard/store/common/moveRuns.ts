/**
 * Moves runs between two stores (`stallscope db export` / `db import`,
 * docs/design.md#team-dashboard): each run's row (pinned and pruned marks too), request rows and unsent
 * ranges, events (with their seqs), stall reports (with their fingerprints) and result, through
 * the store interface only, so any store can be either side. Idempotent: a
 * run the target already holds keeps its row, and rows, events and stall
 * reports already there are left as they are — moving twice changes nothing.
 */
import type { NewRun, RunUpdate } from './records.ts';
import type { DashboardStore } from './storeApi.ts';

const PAGE = 5000;

/** Moves one run; returns false when the source has no such run. */
export async function moveRun(from: DashboardStore, to: DashboardStore, id: string): Promise<boolean> {
  const run = await from.runReads.get(id);
  if (!run) return false;
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
  const result = await from.runReads.result(id);
  if (result && !(await to.runReads.result(id))) await to.runWrites.update(id, { result });
  return true;
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

/** Moves every run (oldest first); the ids moved. */
export async function moveRuns(
  from: DashboardStore,
  to: DashboardStore,
  progress: (id: string, i: number, of: number) => void = () => undefined,
): Promise<string[]> {
  const ids = await from.admin.allRunIds();
  for (let i = 0; i < ids.length; i++) {
    await moveRun(from, to, ids[i]);
    progress(ids[i], i + 1, ids.length);
  }
  return ids;
}
