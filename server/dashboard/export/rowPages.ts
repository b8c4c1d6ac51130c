/**
 * A run's request rows for an export, page by page in index order: stored
 * rows and unsent ranges merged by RequestPages, the event loop given back
 * between pages (the SQLite store reads synchronously), so an export of a
 * run that declared ten million requests holds one page and never freezes
 * the loop.
 */
import { setImmediate as nextTurn } from 'node:timers/promises';
import type { RequestRow } from '../../../shared/protocol/apiSchemas.ts';
import { RequestPages } from '../store/common/requestPages.ts';
import type { DashboardStore } from '../store/common/storeApi.ts';

/** Rows a page: a few MB of objects at most, and few enough queries for ten million rows. */
export const ROW_PAGE = 4096;

/** Reads the run's rows again each time it is iterated (one pass per streamed part). */
export type RowPages = () => AsyncIterable<RequestRow[]>;

export function rowPages(store: DashboardStore, runId: string): RowPages {
  const pages = new RequestPages(store.kysely);
  return async function* () {
    for await (const page of pages.inOrder(runId, ROW_PAGE)) {
      yield page;
      await nextTurn();
    }
  };
}

/** Each page of `rows` mapped by `f`. */
export async function* mapPages<T>(rows: RowPages, f: (page: RequestRow[]) => T[]): AsyncGenerator<T[]> {
  for await (const page of rows()) yield f(page);
}
