/**
 * A run's requests as one list in index order: the rows stored one per
 * request, and the ranges stored one per `requests.not_dispatched`
 * (docs/design.md#bulk-unsent), whose rows are synthesised for the page read
 * only. A stored row inside a range wins over the range's (a request ends
 * once; its own row says how). Paging, the total and a status filter count
 * a range's requests as rows, in SQL counts and arithmetic: a page of a run
 * with a million never-sent requests reads one page, never the million.
 */
import type Database from 'better-sqlite3';
import { disjointRanges, rangeRow, type EndedRange } from '../../../shared/endedRange.ts';

export interface RequestPageQuery {
  offset: number;
  limit: number;
  /** Only requests in this state. */
  status?: string;
}

/** One stretch of the index line: stored rows only (`range` null), or a range with the stored rows inside it. */
interface Segment {
  from: number;
  to: number;
  range: EndedRange | null;
  /** Entries of the filtered list in this stretch. */
  count: number;
}

const END = Number.MAX_SAFE_INTEGER;

export class RequestPages {
  private readonly rangesOf: Database.Statement;
  private readonly countAll: Database.Statement;
  private readonly countWith: Database.Statement;
  private readonly countWithout: Database.Statement;
  private readonly pageAll: Database.Statement;
  private readonly pageWith: Database.Statement;
  private readonly idxWithout: Database.Statement;
  private readonly window: Database.Statement;

  constructor(db: Database.Database) {
    const run = 'run_id = ? AND idx >= ? AND idx < ?';
    this.rangesOf = db.prepare(
      'SELECT from_idx, to_idx, id_prefix, row_json FROM request_ranges WHERE run_id = ? ORDER BY from_idx',
    );
    this.countAll = db.prepare(`SELECT COUNT(*) FROM requests WHERE ${run}`).pluck();
    this.countWith = db.prepare(`SELECT COUNT(*) FROM requests WHERE ${run} AND status = ?`).pluck();
    this.countWithout = db.prepare(`SELECT COUNT(*) FROM requests WHERE ${run} AND status != ?`).pluck();
    this.pageAll = db.prepare(`SELECT row_json FROM requests WHERE ${run} ORDER BY idx LIMIT ? OFFSET ?`).pluck();
    this.pageWith = db
      .prepare(`SELECT row_json FROM requests WHERE ${run} AND status = ? ORDER BY idx LIMIT ? OFFSET ?`)
      .pluck();
    this.idxWithout = db.prepare(`SELECT idx FROM requests WHERE ${run} AND status != ? ORDER BY idx`).pluck();
    this.window = db.prepare(`SELECT idx, row_json FROM requests WHERE ${run} ORDER BY idx`);
  }

  /** The ranges of a run, disjoint, in index order. */
  ranges(runId: string): EndedRange[] {
    const rows = this.rangesOf.all(runId) as {
      from_idx: number;
      to_idx: number;
      id_prefix: string | null;
      row_json: string;
    }[];
    return disjointRanges(
      rows.map((r) => ({
        from: r.from_idx,
        to: r.to_idx,
        idPrefix: r.id_prefix,
        row: JSON.parse(r.row_json) as EndedRange['row'],
      })),
    );
  }

  /** One page of serialized RequestRows, and how many the (filtered) list holds in all. */
  page(runId: string, q: RequestPageQuery): { total: number; json: string[] } {
    const segments = this.segments(runId, q.status);
    const total = segments.reduce((a, s) => a + s.count, 0);
    const json: string[] = [];
    let skip = q.offset;
    for (const s of segments) {
      if (json.length >= q.limit) break;
      if (skip >= s.count) {
        skip -= s.count;
        continue;
      }
      const want = Math.min(q.limit - json.length, s.count - skip);
      for (const row of this.read(runId, s, skip, want, q.status)) json.push(row); // a spread of 1e6 overflows
      skip = 0;
    }
    return { total, json };
  }

  /** The index line cut at the ranges' ends, each stretch counted under the filter. */
  private segments(runId: string, status: string | undefined): Segment[] {
    const out: Segment[] = [];
    let at = 0;
    const rows = (from: number, to: number): Segment => ({
      from,
      to,
      range: null,
      count: (status === undefined
        ? this.countAll.get(runId, from, to)
        : this.countWith.get(runId, from, to, status)) as number,
    });
    for (const r of this.ranges(runId)) {
      if (r.from > at) out.push(rows(at, r.from));
      at = r.to;
      if (status !== undefined && r.row.status !== status) {
        out.push(rows(r.from, r.to)); // only the stored rows inside the range can match
        continue;
      }
      // Every index of the range is an entry, but a stored row inside it in another state.
      const other = status === undefined ? 0 : (this.countWithout.get(runId, r.from, r.to, status) as number);
      out.push({ from: r.from, to: r.to, range: r, count: r.to - r.from - other });
    }
    out.push(rows(at, END));
    return out;
  }

  /** Entries [skip, skip + want) of one stretch. */
  private read(runId: string, s: Segment, skip: number, want: number, status: string | undefined): string[] {
    if (!s.range) {
      return (
        status === undefined
          ? this.pageAll.all(runId, s.from, s.to, want, skip)
          : this.pageWith.all(runId, s.from, s.to, status, want, skip)
      ) as string[];
    }
    // Indices of the range left out by the filter: stored rows in another state (few: a range's requests
    // never began, so the engine stores none inside one).
    const out = status === undefined ? [] : (this.idxWithout.all(runId, s.from, s.to, status) as number[]);
    let idx = s.from + skip;
    let k = 0;
    for (; k < out.length && out[k] <= idx; k++) idx++;
    const picked: number[] = [];
    for (; picked.length < want && idx < s.to; idx++) {
      if (k < out.length && out[k] === idx) {
        k++;
        continue;
      }
      picked.push(idx);
    }
    if (picked.length === 0) return [];
    const stored = new Map<number, string>();
    const found = this.window.all(runId, picked[0], picked[picked.length - 1] + 1) as {
      idx: number;
      row_json: string;
    }[];
    for (const r of found) stored.set(r.idx, r.row_json);
    return picked.map((i) => stored.get(i) ?? JSON.stringify(rangeRow(s.range!, i)));
  }
}
