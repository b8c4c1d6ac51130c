/**
 * JSON text as vLLM writes and reads it. Writing: Python's `json.dump`
 * layout (`", "` and `": "` separators, non-ASCII escaped as `\uXXXX`), so our
 * files look like vLLM's; never a bare NaN/Infinity (those keys are left out
 * upstream of this, and any stray one is written as null). Reading: vLLM's
 * files may contain bare `NaN`, `Infinity` and `-Infinity` (Python's json
 * allows them), and `--append-result` files hold several objects, one per
 * line; both are accepted.
 */
import { StallscopeError } from '../errors.ts';
import type { FloatKind } from './floatKeys.ts';

function pyString(s: string): string {
  return JSON.stringify(s).replace(/[\u007f-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/**
 * Python's `repr(float)`, which `json.dumps` writes for a float: the same
 * shortest round-trip digits as JS, but always with a `.0` or an exponent
 * (`1.0`, `192.0`), and in exponent form outside 1e-4 ≤ |x| < 1e16 with a
 * signed two-digit-minimum exponent (`1e-05`, `1.5e+16`) where JS switches
 * at 1e-7 and 1e21 (`0.00001`, `15000000000000000`).
 */
export function pyFloatRepr(x: number): string {
  if (!Number.isFinite(x)) return Number.isNaN(x) ? 'NaN' : x > 0 ? 'Infinity' : '-Infinity';
  if (x === 0) return Object.is(x, -0) ? '-0.0' : '0.0';
  const [mantissa, expText] = x.toExponential().split('e');
  const exp = Number(expText);
  const sign = mantissa.startsWith('-') ? '-' : '';
  const digits = mantissa.replace(/^-/, '').replace('.', '');
  if (exp < -4 || exp >= 16) {
    const m = digits.length > 1 ? `${digits[0]}.${digits.slice(1)}` : digits;
    return `${sign}${m}e${exp < 0 ? '-' : '+'}${String(Math.abs(exp)).padStart(2, '0')}`;
  }
  if (exp < 0) return `${sign}0.${'0'.repeat(-exp - 1)}${digits}`;
  const int = digits.slice(0, exp + 1).padEnd(exp + 1, '0');
  const frac = digits.slice(exp + 1);
  return `${sign}${int}.${frac || '0'}`;
}

/**
 * Serialise like Python's `json.dumps(obj)` with default arguments (but
 * NaN/±Infinity become null). Numbers are written as Python ints unless
 * `kind` (for a result: `resultFloatKind`, per top-level key) says vLLM holds
 * a float there.
 */
export function pyJsonDumps(value: unknown, kind?: (key: string) => FloatKind | undefined): string {
  return dump(value, undefined, kind);
}

function dump(value: unknown, kind: FloatKind | undefined, keyKind?: (key: string) => FloatKind | undefined): string {
  if (value === null || value === undefined) return 'null';
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) return 'null';
    if (kind === 'float' || (kind === 'intUnlessZero' && value === 0)) return pyFloatRepr(value);
    return JSON.stringify(value);
  }
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  if (typeof value === 'string') return pyString(value);
  if (Array.isArray(value)) {
    const item =
      kind === 'floats' ? 'float' : kind === 'floatRows' ? 'floats' : typeof kind === 'object' ? kind : undefined;
    return `[${value.map((v) => dump(v, item)).join(', ')}]`;
  }
  if (typeof value === 'object') {
    const fields = typeof kind === 'object' ? kind : undefined;
    const parts: string[] = [];
    for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
      if (v === undefined) continue;
      parts.push(`${pyString(k)}: ${dump(v, keyKind ? keyKind(k) : (fields?.[k] ?? fields?.['*']))}`);
    }
    return `{${parts.join(', ')}}`;
  }
  return 'null';
}

const NAN = '\u0000stallscope:NaN';
const POS_INF = '\u0000stallscope:Infinity';
const NEG_INF = '\u0000stallscope:-Infinity';
const SENTINEL: Record<string, string> = { NaN: NAN, Infinity: POS_INF, '-Infinity': NEG_INF };

/**
 * The tokens that matter when splitting: a whole string (copied as it is), a
 * bare literal, a bracket, a newline. Everything else (numbers, commas,
 * spaces) is copied in bulk between them, so a 28 MB file is split in a
 * fraction of a second rather than one character at a time. A string that
 * never closes (the file is cut or hostile) runs to the end of the text: it
 * always matches, so no later quote is tried as a string's start again — a
 * 200 KB run of `\"` after one quote was quadratic (seconds). JSON.parse then
 * says what is wrong.
 */
const TOKEN = /"(?:[^"\\]|\\[\s\S]?)*(?:"|$)|-Infinity|Infinity|NaN|[{}[\]\n]/g;

/**
 * Split `text` into its top-level JSON values (a value ends where its
 * outermost bracket closes, or at a newline outside any), rewriting the bare
 * literals outside strings into sentinel strings that `revive` turns back
 * into numbers.
 */
function splitValues(text: string): string[] {
  const values: string[] = [];
  let parts: string[] = [];
  let from = 0;
  let depth = 0;
  const copyTo = (end: number) => {
    if (end > from) parts.push(text.slice(from, end));
    from = end;
  };
  const endValue = () => {
    const v = parts.join('');
    if (v.trim()) values.push(v);
    parts = [];
  };
  TOKEN.lastIndex = 0;
  for (let m = TOKEN.exec(text); m !== null; m = TOKEN.exec(text)) {
    const tok = m[0];
    const at = m.index;
    if (tok[0] === '"') continue;
    const sentinel = SENTINEL[tok];
    if (sentinel !== undefined) {
      copyTo(at);
      parts.push(JSON.stringify(sentinel));
      from = at + tok.length;
    } else if (tok === '{' || tok === '[') depth++;
    else if (tok === '}' || tok === ']') {
      depth--;
      if (depth === 0) {
        copyTo(at + 1);
        endValue();
      }
    } else if (depth === 0) {
      copyTo(at); // a newline between top-level values
      endValue();
    }
  }
  copyTo(text.length);
  endValue();
  return values;
}

function revive(_key: string, value: unknown): unknown {
  if (value === NAN) return Number.NaN;
  if (value === POS_INF) return Number.POSITIVE_INFINITY;
  if (value === NEG_INF) return Number.NEGATIVE_INFINITY;
  return value;
}

/**
 * Parse a vLLM result file: one JSON object, or JSON-lines from
 * `--append-result` (objects separated by newlines); bare NaN/Infinity
 * literals are accepted. Throws API_IMPORT_INVALID saying which object is bad.
 */
export function parseResultText(text: string): Record<string, unknown>[] {
  const pieces = splitValues(text.replace(/^\uFEFF/, ''));
  if (pieces.length === 0) throw new StallscopeError('API_IMPORT_INVALID', 'the file is empty');
  return pieces.map((piece, i) => {
    let value: unknown;
    try {
      value = JSON.parse(piece, revive);
    } catch (err) {
      throw new StallscopeError('API_IMPORT_INVALID', `object ${i + 1} is not valid JSON: ${(err as Error).message}`);
    }
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      throw new StallscopeError('API_IMPORT_INVALID', `object ${i + 1} is not a JSON object`);
    }
    return value as Record<string, unknown>;
  });
}
