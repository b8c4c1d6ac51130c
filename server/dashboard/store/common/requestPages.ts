/**
 * A run's requests as one list in index order: the rows stored one per
 * request, and the ranges stored one per `requests.unsent`
 * (docs/design.md#bulk-unsent), whose rows are synthesised for the page read
 * only. A stored row inside a range wins over the range's (a request ends
 * once; its own row says how). Paging, the total and a status filter count
 * a range's requests as rows, in SQL counts and arithmetic: a page of a run
 * with a million unsent requests reads one page, never the million.
 */
import { type Kysely, type SelectQueryBuilder } from 'kysely';
import type { RequestRow } from '../../../../shared/protocol/apiSchemas.ts';
import { disjointRanges, rangeRow, type EndedRange } from '../../../../shared/requests/endedRange.ts';
import type { StallscopeDb } from './schema.ts';

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

/** Past every index: PostgreSQL's `idx` is an INTEGER, which refuses a larger bound. */
const END = 2 ** 31 - 1;

type Requests = SelectQueryBuilder<StallscopeDb, 'requests', object>;

/** Written once in Kysely: the same reads serve SQLite and PostgreSQL (docs/design.md#team-dashboard). */
export class RequestPages {
  constructor(private readonly db: Kysely<StallscopeDb>) {}

  /** The run's stored rows with from <= idx < to, and (when given) in state `status` or not in it. */
  private rows(runId: string, from: number, to: number, status?: { is: boolean; value: string }): Requests {
    let q = this.db.selectFrom('requests').where('run_id', '=', runId).where('idx', '>=', from).where('idx', '<', to);
    if (status) q = q.where('status', status.is ? '=' : '!=', status.value);
    return q;
  }

  private async count(q: Requests): Promise<number> {
    const r = await q.select((eb) => eb.fn.countAll().as('n')).executeTakeFirst();
    return Number(r?.n ?? 0);
  }

  /** The ranges of a run, disjoint, in index order. */
  async ranges(runId: string): Promise<EndedRange[]> {
    const rows = await this.db
      .selectFrom('request_ranges')
      .select(['from_idx', 'to_idx', 'id_prefix', 'row_json'])
      .where('run_id', '=', runId)
      .orderBy('from_idx')
      .execute();
    return disjointRanges(
      rows.map((r) => ({
        from: Number(r.from_idx),
        to: Number(r.to_idx),
        idPrefix: r.id_prefix,
        row: JSON.parse(r.row_json) as EndedRange['row'],
      })),
    );
  }

  /** One page of serialized RequestRows, and how many the (filtered) list holds in all. */
  async page(runId: string, q: RequestPageQuery): Promise<{ total: number; json: string[] }> {
    const segments = await this.segments(runId, q.status);
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
      for (const row of await this.read(runId, s, skip, want, q.status)) json.push(row); // a spread of 1e6 overflows
      skip = 0;
    }
    return { total, json };
  }

  /** The index line cut at the ranges' ends, each stretch counted under the filter. */
  private async segments(runId: string, status: string | undefined): Promise<Segment[]> {
    const out: Segment[] = [];
    let at = 0;
    const only = status === undefined ? undefined : { is: true, value: status };
    const rows = async (from: number, to: number): Promise<Segment> => ({
      from,
      to,
      range: null,
      count: await this.count(this.rows(runId, from, to, only)),
    });
    for (const r of await this.ranges(runId)) {
      if (r.from > at) out.push(await rows(at, r.from));
      at = r.to;
      if (status !== undefined && r.row.status !== status) {
        out.push(await rows(r.from, r.to)); // only the stored rows inside the range can match
        continue;
      }
      // Every index of the range is an entry, but a stored row inside it in another state.
      const other =
        status === undefined ? 0 : await this.count(this.rows(runId, r.from, r.to, { is: false, value: status }));
      out.push({ from: r.from, to: r.to, range: r, count: r.to - r.from - other });
    }
    out.push(await rows(at, END));
    return out;
  }

  /** Entries [skip, skip + want) of one stretch. */
  private async read(
    runId: string,
    s: Segment,
    skip: number,
    want: number,
    status: string | undefined,
  ): Promise<string[]> {
    if (!s.range) {
      const only = status === undefined ? undefined : { is: true, value: status };
      const found = await this.rows(runId, s.from, s.to, only)
        .select('row_json')
        .orderBy('idx')
        .limit(want)
        .offset(skip)
        .execute();
      return found.map((r) => r.row_json);
    }
    // Indices of the range left out by the filter: stored rows in another state (few: a range's requests
    // never began, so the engine stores none inside one).
    const out =
      status === undefined
        ? []
        : (
            await this.rows(runId, s.from, s.to, { is: false, value: status }).select('idx').orderBy('idx').execute()
          ).map((r) => Number(r.idx));
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
    const found = await this.rows(runId, picked[0], picked[picked.length - 1] + 1)
      .select(['idx', 'row_json'])
      .orderBy('idx')
      .execute();
    for (const r of found) stored.set(Number(r.idx), r.row_json);
    return picked.map((i) => stored.get(i) ?? JSON.stringify(rangeRow(s.range!, i)));
  }

  /**
   * Every request of the run in index order, `size` rows a page: stored rows read by index from where the last
   * page ended (never by OFFSET), a range's rows made from its template with the stored rows inside it winning.
   * Memory is a page whatever the run declared (docs/design.md#exports); the caller frees the loop between pages.
   */
  async *inOrder(runId: string, size: number): AsyncGenerator<RequestRow[]> {
    let at = 0;
    for (const r of [...(await this.ranges(runId)), null]) {
      const to = r ? r.from : END;
      for (let from = at; from < to;) {
        const found = await this.rows(runId, from, to).select(['idx', 'row_json']).orderBy('idx').limit(size).execute();
        if (found.length === 0) break;
        yield found.map((x) => JSON.parse(x.row_json) as RequestRow);
        if (found.length < size) break;
        from = Number(found[found.length - 1].idx) + 1;
      }
      if (!r) break;
      for (let from = r.from; from < r.to; from += size) {
        const end = Math.min(r.to, from + size);
        const stored = new Map<number, string>();
        for (const x of await this.rows(runId, from, end).select(['idx', 'row_json']).execute())
          stored.set(Number(x.idx), x.row_json);
        const page: RequestRow[] = [];
        for (let i = from; i < end; i++) {
          const own = stored.get(i);
          page.push(own === undefined ? rangeRow(r, i) : (JSON.parse(own) as RequestRow));
        }
        yield page;
      }
      at = r.to;
    }
  }
}
