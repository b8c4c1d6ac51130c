/**
 * How numbers, counted things and moments read, written once for the CLI's
 * verdict reasons, the dashboard's messages and every page: thousands
 * separators ("1,083"), plurals that agree ("1 process", "2 processes") and
 * times of day with their date and time zone, so a log read at 2 a.m. by
 * someone in another zone still says when (docs/design.md#words-and-numbers).
 */

/**
 * One formatter for every count: `toLocaleString` with options builds a new one per call, which in Chromium was the
 * largest share of drawing a page of the runs list (~1 ms a call under load; the list makes ~6 a row). Built on first
 * use, not when the module loads: the first Intl object of a new page starts the locale data (30–50 ms in Chromium on
 * a loaded machine), which the web entry's first reads must not wait for (docs/performance.md#cold-loads).
 */
let countFormat: Intl.NumberFormat | undefined;

/** A count with thousands separators: 1083 → "1,083". Non-integers keep their decimals. */
export function count(n: number): string {
  if (!Number.isFinite(n)) return String(n);
  countFormat ??= new Intl.NumberFormat('en-US', { maximumFractionDigits: 20 });
  return countFormat.format(n);
}

/** "1 request", "1,083 requests", "1 process", "2 processes" (the plural given when it is not one + s). */
export function plural(n: number, one: string, many = `${one}s`): string {
  return `${count(n)} ${n === 1 ? one : many}`;
}

const FORMATS = new Map<string, Intl.DateTimeFormat>();

function formatIn(timeZone: string | undefined): Intl.DateTimeFormat {
  const key = timeZone ?? '';
  let f = FORMATS.get(key);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone,
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
      hourCycle: 'h23',
      timeZoneName: 'short',
    });
    FORMATS.set(key, f);
  }
  return f;
}

/**
 * A moment as date, 24-hour time and zone: "2026-12-01 21:14:53 UTC" (the
 * reader's zone unless one is given). "–" for no moment.
 */
export function dateTime(ms: number | null | undefined, timeZone?: string): string {
  if (ms === null || ms === undefined || !Number.isFinite(ms)) return '–';
  const p: Record<string, string> = {};
  for (const part of formatIn(timeZone).formatToParts(new Date(ms))) p[part.type] = part.value;
  return `${p.year}-${p.month}-${p.day} ${p.hour}:${p.minute}:${p.second} ${p.timeZoneName}`;
}
