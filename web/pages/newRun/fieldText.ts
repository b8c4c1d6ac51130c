/** How list and JSON fields of the form read and write their text. */
export const list = (v: unknown) => (Array.isArray(v) ? v.join(', ') : typeof v === 'string' ? v : '');
export const splitList = (t: string) =>
  t
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
export const numList = (t: string) => splitList(t).map((s) => (Number.isFinite(Number(s)) ? Number(s) : s));
export const json = (v: unknown) => (typeof v === 'string' ? v : JSON.stringify(v ?? {}));
export const parseJson = (t: string): unknown => {
  try {
    return JSON.parse(t) as unknown;
  } catch {
    return t; // the schema then says "must be a JSON object" beside the field
  }
};
