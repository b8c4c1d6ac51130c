/**
 * A range of requests that ended together, kept as one record and read as a
 * row per request (docs/design.md#bulk-unsent): the unsent tail of a
 * stopped run (`requests.unsent`). Its rows differ only in their
 * index and request id, so a reader of any page synthesises the rows it
 * shows from the range's one template and never holds the range's million.
 */
import type { RequestRow } from '../protocol/apiSchemas.ts';
import type { RequestsUnsent } from '../protocol/protocol.ts';
import { blankRequest, foldRequest, unsentOutcome } from './requestLifecycle.ts';
import { storedRow } from './storedRow.ts';

export interface EndedRange {
  from: number;
  /** Exclusive. */
  to: number;
  /**
   * Request ids of the range as the engine makes them, `<prefix><index>`
   * (known once any request of the run was named); null: rows read an empty id.
   */
  idPrefix: string | null;
  /** The row every request of the range shows, but for its index and id. */
  row: RequestRow;
}

/** The range a `requests.unsent` ends: each row what a `request.unsent` of its own stored. */
export function unsentRange(e: RequestsUnsent, idPrefix: string | null): EndedRange {
  const r = blankRequest(e.from);
  const o = unsentOutcome(e, e.from, '');
  foldRequest(r, { type: 'request.unsent', t: e.t, outcome: o });
  // The id is the range's to give, per row (rangeRow).
  const row: RequestRow = { ...storedRow(r, o), requestId: '' };
  return { from: e.from, to: e.to, idPrefix, row };
}

/** Request `index`'s row in range `r` (the caller knows `index` lies in it). */
export function rangeRow(r: EndedRange, index: number): RequestRow {
  return { ...r.row, index, requestId: r.idPrefix === null ? '' : `${r.idPrefix}${index}` };
}

/**
 * Ranges in index order with overlaps cut off (a later range keeps only what
 * an earlier one did not cover: a request ends once) and empty ones dropped.
 */
export function disjointRanges<R extends { from: number; to: number }>(ranges: readonly R[]): R[] {
  const sorted = [...ranges].sort((a, b) => a.from - b.from);
  const out: R[] = [];
  let end = 0;
  for (const r of sorted) {
    const from = Math.max(r.from, end);
    if (from >= r.to) continue;
    out.push(from === r.from ? r : { ...r, from });
    end = r.to;
  }
  return out;
}
