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
