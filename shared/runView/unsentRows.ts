/**
 * The rows of a run's unsent ranges as the page shows them
 * (docs/design.md#bulk-unsent): the model keeps each `requests.unsent`
 * as the event and leaves its rows as they were; whoever draws a row reads it
 * through `shownRow`, which gives the row a `request.unsent` of its
 * own would have left — built when first asked for (only rows in view ask),
 * then the same object, so memoised rows skip redraws.
 */
import type { RequestsUnsent } from '../protocol/protocol.ts';
import { foldRequest, unsentOutcome } from '../requests/requestLifecycle.ts';
import type { RequestView, RunModel } from './runModel.ts';

/** The range request `index` lies in, if any (a run has one or two: a scan is the fastest lookup). */
export function unsentRangeOf(ranges: readonly RequestsUnsent[], index: number): RequestsUnsent | undefined {
  for (const r of ranges) if (index >= r.from && index < r.to) return r;
  return undefined;
}

/** Synthesised rows by the row object they stand for (a row in a range is never written again). */
const shown = new WeakMap<RequestView, RequestView>();

/** Row `row` as shown: itself, or, for a request of an unsent range that had not ended, its end in the range. */
export function shownRow(m: Pick<RunModel, 'unsent'>, row: RequestView): RequestView;
export function shownRow(m: Pick<RunModel, 'unsent'>, row: RequestView | undefined): RequestView | undefined;
export function shownRow(m: Pick<RunModel, 'unsent'>, row: RequestView | undefined): RequestView | undefined {
  if (!row || row.outcome || m.unsent.length === 0) return row;
  const range = unsentRangeOf(m.unsent, row.index);
  if (!range) return row;
  let v = shown.get(row);
  if (!v) {
    v = { ...row };
    const o = unsentOutcome(range, row.index, row.requestId);
    foldRequest(v, { type: 'request.unsent', t: range.t, outcome: o });
    v.outcome = o;
    shown.set(row, v);
  }
  return v;
}

/**
 * Every row as shown (the charts and the session lanes count and place each
 * request): the model's own array when the run has no unsent range.
 */
export function shownRows(m: Pick<RunModel, 'unsent' | 'requests'>): readonly RequestView[] {
  return m.unsent.length === 0 ? m.requests : m.requests.map((r) => shownRow(m, r));
}
