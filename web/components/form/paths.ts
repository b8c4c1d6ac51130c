/** Reading and immutably writing nested form values by dotted path (`target.faults.0.after`). */
export type Obj = Record<string, unknown>;

export function getPath(obj: unknown, path: string): unknown {
  let cur: unknown = obj;
  for (const k of path.split('.')) {
    if (cur === null || typeof cur !== 'object') return undefined;
    cur = (cur as Obj)[k];
  }
  return cur;
}

/** A copy of `obj` with `path` set; `undefined` deletes the key (so optional fields disappear). */
export function setPath<T>(obj: T, path: string, value: unknown): T {
  const [head, ...rest] = path.split('.');
  const src = (obj ?? {}) as Obj | unknown[];
  const copy: Obj | unknown[] = Array.isArray(src) ? [...src] : { ...src };
  const next = rest.length ? setPath((src as Obj)[head], rest.join('.'), value) : value;
  if (next === undefined && !Array.isArray(copy)) delete copy[head];
  else (copy as Obj)[head] = next;
  return copy as T;
}

/** Number input text → a number when it is one, `empty` when blank, else the raw text (the schema then names the field). */
export function parseNumberInput(raw: string, empty: undefined | null): number | string | undefined | null {
  const t = raw.trim();
  if (t === '') return empty;
  const n = Number(t);
  return Number.isFinite(n) ? n : raw;
}

/** `key=value` lines → a record, plus the lines that are not `key=value`. */
export function parseKeyValues(text: string): { record: Record<string, string>; bad: string[] } {
  const record: Record<string, string> = {};
  const bad: string[] = [];
  for (const line of text.split('\n')) {
    const l = line.trim();
    if (!l) continue;
    const i = l.indexOf('=');
    if (i <= 0) bad.push(l);
    else record[l.slice(0, i).trim()] = l.slice(i + 1).trim();
  }
  return { record, bad };
}

export const formatKeyValues = (r: Record<string, string> | undefined) =>
  Object.entries(r ?? {})
    .map(([k, v]) => `${k}=${v}`)
    .join('\n');

/**
 * A field's message after its label: the schema's and the cross-field rules'
 * messages continue the label ("Max batch must be at most 64"); a server's own
 * sentence ("with ramp-up the rate comes from …") follows a colon.
 */
export function labelled(label: string, message: string): string {
  return /^(must|is|needs|has)\b/.test(message) ? `${label} ${message}` : `${label}: ${message}`;
}
