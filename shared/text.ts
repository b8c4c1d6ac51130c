/**
 * A value from a file or the wire as text for a label, a CSV cell or a
 * message: strings as they are, numbers and booleans as String() writes
 * them, anything else as JSON (never "[object Object]").
 */
export function asText(v: unknown): string {
  if (v === null || v === undefined) return '';
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'boolean' || typeof v === 'bigint') return String(v);
  return JSON.stringify(v) ?? '';
}

/**
 * `s` without its trailing slashes (a base URL's). Scanned from the end: `/\/+$/` is quadratic on a run of
 * slashes followed by anything else — a 20 KB URL from a POST body held the loop 0.3 s (docs/design.md#peer-bounds).
 */
export function trimTrailingSlashes(s: string): string {
  let end = s.length;
  while (end > 0 && s.charCodeAt(end - 1) === 47) end--;
  return end === s.length ? s : s.slice(0, end);
}
