/**
 * How many series a /metrics family may have, whoever chooses its labels
 * (docs/design.md#metrics). Label values come from peers (any report token
 * names a `ci_pipeline`, a `ci_node`, a stall's phase): uncapped, 100,000
 * pipelines made a 45.6 MB scrape. So every family keeps at most
 * `MAX_SERIES` label sets of its own — the largest by value — and sums the
 * rest into one series whose labels read `other`; every label value is cut
 * to `MAX_LABEL_CHARS`. Sums are kept: the series of a family add up to the
 * true total whatever was folded.
 */

/**
 * Label sets a family keeps of its own; the rest are summed under `OTHER`. The database's reads keep fewer
 * (store/common/metricsQueries.ts: 50 values of a peer's label, times a few verdicts), so this rarely folds.
 */
export const MAX_SERIES = 500;
/** The longest label value exported (a longer one is cut and ends with `…`). */
export const MAX_LABEL_CHARS = 100;
/** The label value of the series that sums what did not make the top `MAX_SERIES`. */
export const OTHER = 'other';

/** Labels of one series; null is a value folded into `OTHER` (as the capped SQL reads return it). */
export type Labels = Record<string, string | null>;

export interface Series {
  labels: Labels;
  value: number;
}

/** A label value as exported: `OTHER` for null, else at most MAX_LABEL_CHARS characters. */
export function boundLabel(v: string | null): string {
  if (v === null) return OTHER;
  // By code points, so a cut never splits a surrogate pair into invalid text.
  const chars = Array.from(v.length > MAX_LABEL_CHARS * 2 ? v.slice(0, MAX_LABEL_CHARS * 2) : v);
  return chars.length <= MAX_LABEL_CHARS ? v : `${chars.slice(0, MAX_LABEL_CHARS - 1).join('')}…`;
}

const keyOf = (labels: Record<string, string>): string => JSON.stringify(Object.entries(labels));

/**
 * The series of one family, capped: values bounded, label sets that became
 * equal (two values cut to the same prefix) summed, the `max` largest kept
 * and the rest summed into the one series whose labels all read `OTHER`. The
 * databases' reads arrive already capped (top-N in SQL, the tail as that
 * series), so this sees at most `max + 1` rows; it is the guarantee, not the
 * work.
 */
export function capSeries(
  rows: readonly Series[],
  max = MAX_SERIES,
): { labels: Record<string, string>; value: number }[] {
  const merged = new Map<string, { labels: Record<string, string>; value: number }>();
  for (const r of rows) {
    const labels = Object.fromEntries(Object.entries(r.labels).map(([k, v]) => [k, boundLabel(v)]));
    const key = keyOf(labels);
    const at = merged.get(key);
    if (at) at.value += r.value;
    else merged.set(key, { labels, value: r.value });
  }
  const first = rows[0];
  if (!first) return [];
  const otherLabels = Object.fromEntries(Object.keys(first.labels).map((k) => [k, OTHER]));
  const otherKey = keyOf(otherLabels);
  const own = [...merged.entries()].filter(([k]) => k !== otherKey).map(([, s]) => s);
  if (own.length <= max) return [...merged.values()];
  own.sort((a, b) => b.value - a.value);
  const rest = own.slice(max).reduce((a, s) => a + s.value, merged.get(otherKey)?.value ?? 0);
  return [...own.slice(0, max), { labels: otherLabels, value: rest }];
}

/**
 * The label sets a family counted in this process (a counter, a histogram):
 * the first `max` distinct sets keep their own series, a later new one is
 * counted under `OTHER`, so what a peer sends can never grow the registry.
 */
export class LabelGate {
  private readonly admitted = new Set<string>();

  constructor(private readonly max = MAX_SERIES) {}

  admit(labels: Record<string, string>): Record<string, string> {
    const bounded = Object.fromEntries(Object.entries(labels).map(([k, v]) => [k, boundLabel(v)]));
    const key = keyOf(bounded);
    if (this.admitted.has(key)) return bounded;
    if (this.admitted.size < this.max) {
      this.admitted.add(key);
      return bounded;
    }
    return Object.fromEntries(Object.keys(labels).map((k) => [k, OTHER]));
  }
}
