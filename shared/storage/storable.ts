/**
 * What a database can store (docs/design.md#storable-values): one rule for every string and number a peer
 * chooses, applied before anything is stored — by the dashboard's request validator (every route's body, query
 * and parameters), its event and telemetry checks, the import and `db` commands. PostgreSQL's `text` cannot
 * hold U+0000, and both stores write UTF-8, into which an unpaired UTF-16 surrogate cannot be encoded (the
 * drivers would silently store U+FFFD instead); JSON numbers beyond a double (`1e309`) parse to Infinity, which
 * no column holds. Written once here, walked over whole values, so a free-form field (metadata, a config, a
 * stack frame) gets it as surely as a declared one.
 */
import { Type, type TInteger } from 'typebox';

/** The largest PostgreSQL `INTEGER` (a counter, an index, a worker or op id). */
export const INT4_MAX = 2_147_483_647;
/** The smallest PostgreSQL `INTEGER`. */
export const INT4_MIN = -2_147_483_648;
/** The largest epoch ms a JavaScript date can hold; well inside PostgreSQL's `BIGINT`. */
export const MAX_EPOCH_MS = 8_640_000_000_000_000;

/** Any character that may be unstorable: a cheap test that lets nearly every string through at once. */
const SUSPECT = /[\0\ud800-\udfff]/;
/** U+0000, or a surrogate that is not half of a pair. */
const UNSTORABLE = /\0|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** Why `s` cannot be stored as text, or null when it can. */
export function unstorableText(s: string): string | null {
  if (!SUSPECT.test(s)) return null;
  const m = UNSTORABLE.exec(s);
  if (!m) return null;
  return m[0] === '\0'
    ? 'holds U+0000 (NUL), which the database cannot store'
    : 'holds an unpaired UTF-16 surrogate, which the database cannot store';
}

export interface Unstorable {
  /** JSON pointer to the value (`/events/3/phase`); a key that is itself unstorable is named with its text escaped. */
  pointer: string;
  message: string;
}

function pointerPart(key: string): string {
  const readable = key.replace(/[\0\ud800-\udfff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
  return readable.replace(/~/g, '~0').replace(/\//g, '~1');
}

/** Deeper than this, a value is refused as such: no contract nests so deep, and the walk stays off the stack's end. */
const MAX_DEPTH = 256;

/** The reason found, and the path to it collected on the way back up (nothing is allocated while all is well). */
type Found = { parts: string[]; message: string };

function walk(v: unknown, depth: number): Found | null {
  if (typeof v === 'string') {
    const why = unstorableText(v);
    return why ? { parts: [], message: why } : null;
  }
  if (typeof v === 'number')
    return Number.isFinite(v) ? null : { parts: [], message: 'is not a finite number (too large for the database)' };
  if (typeof v !== 'object' || v === null) return null;
  if (depth === MAX_DEPTH) return { parts: [], message: `is nested deeper than ${MAX_DEPTH} levels` };
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) {
      const f = walk(v[i], depth + 1);
      if (f) return (f.parts.push(String(i)), f);
    }
    return null;
  }
  for (const k in v) {
    const why = unstorableText(k);
    if (why) return { parts: [pointerPart(k)], message: `(a key) ${why}` };
    const f = walk((v as Record<string, unknown>)[k], depth + 1);
    if (f) return (f.parts.push(pointerPart(k)), f);
  }
  return null;
}

/** The first string (value or object key) or number in `value` that no database column can hold, or null. */
export function findUnstorable(value: unknown): Unstorable | null {
  const f = walk(value, 0);
  return f
    ? {
        pointer: f.parts
          .reverse()
          .map((p) => `/${p}`)
          .join(''),
        message: f.message,
      }
    : null;
}

/** An integer a peer chooses that is stored in an `INTEGER` column (a worker or op id): refused beyond it. */
export function Int4(minimum = INT4_MIN): TInteger {
  return Type.Integer({ minimum, maximum: INT4_MAX });
}
