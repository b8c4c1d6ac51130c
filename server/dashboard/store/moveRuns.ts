/**
 * Moves runs between two stores (`stallscope db export` / `db import`,
 * docs/design.md#team-dashboard): each run's row, request rows, events (with
 * their seqs), stall reports (with their fingerprints) and result, through
 * the store interface only, so any store can be either side. Idempotent: a
 * run the target already holds keeps its row, and rows, events and stall
 * reports already there are left as they are — moving twice changes nothing.
 */
import type { DashboardStore, NewRun, RunUpdate } from './storeApi.ts';

const PAGE = 5000;

/** Moves one run; returns false when the source has no such run. */
export async function moveRun(from: DashboardStore, to: DashboardStore, id: string): Promise<boolean> {
  const run = await from.get(id);
  if (!run) return false;
  if (!(await to.exists(id))) {
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
    await to.insertWhole(n, f);
  }
  for (let offset = 0; ; offset += PAGE) {
    const page = await from.requests(id, offset, PAGE);
    if (page.requests.length)
      await to.writeRows(id, {
        index: page.requests.map((r) => r.index),
        json: page.requests.map((r) => JSON.stringify(r)),
        status: page.requests.map((r) => r.status),
      });
    if (page.requests.length < PAGE) break;
  }
  for (let after = 0; ;) {
    const page = await from.eventsAfter(id, after, PAGE);
    await to.writeEvents(id, page);
    if (page.length < PAGE) break;
    after = page[page.length - 1].seq;
  }
  await to.writeStallRows(id, await from.stallRows(id));
  const result = await from.result(id);
  if (result && !(await to.result(id))) await to.update(id, { result });
  return true;
}

/** Moves every run (oldest first); the ids moved. */
export async function moveRuns(
  from: DashboardStore,
  to: DashboardStore,
  progress: (id: string, i: number, of: number) => void = () => undefined,
): Promise<string[]> {
  const ids = await from.allRunIds();
  for (let i = 0; i < ids.length; i++) {
    await moveRun(from, to, ids[i]);
    progress(ids[i], i + 1, ids.length);
  }
  return ids;
}
