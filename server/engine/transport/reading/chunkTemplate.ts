/**
 * The chunks of a stream share one text skeleton: a vLLM text chunk differs
 * from the one before it only in its content string and its token counts,
 * and from another request's chunks also in its `id`, `created` and
 * `prompt_tokens`. A shape learnt from one plain text chunk (the text
 * between those values, kept verbatim) reads the next ones without
 * JSON.parse: their fixed text is compared at known offsets (native string
 * compares) and only the values between are scanned and checked against
 * JSON's grammar. That is exact: a text equal to a valid JSON text but for
 * one string literal or number literal replaced by another is valid JSON,
 * parsed the same but for that value. JSON.parse was a large share of the
 * client's main thread (docs/design.md#stream, docs/performance.md#chunk-template). Any difference —
 * another key, an error, metrics, audio, the usage-only last chunk — is not
 * a match, and the caller parses that text in full (and may learn from it).
 *
 * A run's streams share the shapes they learn (ChunkShapes): with the id and
 * the creation time as slots, a request's role chunk and first text chunk
 * read as the requests' before them did, and a run learns each shape once
 * instead of twice per request (a parse and a check parse each: the largest
 * part of a request's parsing, and of V8's compiling, in a 2,300-request run).
 *
 * What a match gives is the part of the chunk the stream parser reads — a
 * text chunk's `usage.prompt_tokens`, `usage.completion_tokens` and
 * `choices[0].delta.content`, the values JSON.parse would give — in the
 * template's fields, read until the next match: no object per chunk.
 */
import { isObject, type Json } from './payload.ts';

/** Learnings per stream (a chunk's role, its first content, a finish reason … then it has the shape). */
const LEARNS = 8;
/** Shapes a run keeps (a role chunk, a text chunk, a last text chunk with its finish reason, one spare). */
export const MAX_SHAPES = 4;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const MINUS = 0x2d;
const ZERO = 0x30;
const NINE = 0x39;

/** The values a shape reads; `id` and `created` are checked as JSON and not returned (the parser does not read them). */
type SlotKey = 'id' | 'created' | 'prompt_tokens' | 'content' | 'completion_tokens' | 'total_tokens';

/** Where a value of the learnt chunk lies, and what it is. */
interface Slot {
  at: number;
  end: number;
  key: SlotKey;
}

/** A learnt chunk, never changed once made: its text around its slots (fixed[0], slot 0, fixed[1], …, fixed[n]). */
interface Shape {
  readonly fixed: readonly string[];
  readonly keys: readonly SlotKey[];
  /** Whether the slots are strings (content, id) or numbers, per slot: read by match() without a compare of keys. */
  readonly strings: readonly boolean[];
  /** `usage.prompt_tokens` when it is not a slot (absent, null, or not a count): fixed in the text. */
  readonly promptTokens: unknown;
  /** Whether a slot holds a value of one request (id, created, prompt_tokens): the run's shapes, not a stream's. */
  readonly perRequest: boolean;
}

const PER_REQUEST: Readonly<Record<SlotKey, boolean>> = {
  id: true,
  created: true,
  prompt_tokens: true,
  content: false,
  completion_tokens: false,
  total_tokens: false,
};
/** Where read() found each slot of the shape it read last (synchronous: one pair for every template). */
const SLOT_AT = new Int32Array(Object.keys(PER_REQUEST).length);
const SLOT_END = new Int32Array(SLOT_AT.length);

/** The shapes one run's streams learnt, newest first, at most MAX_SHAPES. */
export class ChunkShapes {
  readonly list: Shape[] = [];

  add(shape: Shape): void {
    const same = this.list.findIndex((s) => sameFixed(s, shape));
    if (same >= 0) this.list.splice(same, 1);
    this.list.unshift(shape);
    if (this.list.length > MAX_SHAPES) this.list.length = MAX_SHAPES;
  }
}

function sameFixed(a: Shape, b: Shape): boolean {
  if (a.fixed.length !== b.fixed.length || !Object.is(a.promptTokens, b.promptTokens)) return false;
  for (let k = 0; k < a.fixed.length; k++) if (a.fixed[k] !== b.fixed[k]) return false;
  for (let k = 0; k < a.keys.length; k++) if (a.keys[k] !== b.keys[k]) return false;
  return true;
}

/**
 * One stream's reader of the run's shapes: the shape its last chunk had
 * first, then the run's. A run's shape that matched is made the stream's
 * own (specialise()): its id, creation time and prompt count are one
 * request's and stay so for the stream, so they become fixed text again and
 * the stream's next chunks read three values, not six.
 */
export class ChunkTemplate {
  /** This stream's last matched or learnt shape, its request's values fixed. */
  private last: Shape | null = null;
  /** Read once per value by match(); one slot, as matching is synchronous. */
  private value: unknown = undefined;
  /** The last matched chunk's `choices[0].delta.content`. */
  content = '';
  /** The last matched chunk's `usage.completion_tokens`. */
  completion: unknown = undefined;
  /** The last matched chunk's `usage.prompt_tokens` (undefined when it had none). */
  prompt: unknown = undefined;
  /**
   * Plain text chunks that did not match may be learnt from this many times: a stream whose every chunk
   * differs in its fixed text (another model name each time) costs one more parse per learning, so it stops early.
   */
  private learnsLeft = LEARNS;

  /** `shapes`: the run's, shared by its streams; a template of its own when absent. */
  constructor(private readonly shapes: ChunkShapes = new ChunkShapes()) {}

  /** True when `s` is a learnt chunk with other values: then `content`, `completion` and `prompt` hold them. */
  match(s: string): boolean {
    const last = this.last;
    if (last !== null && this.read(last, s)) {
      if (last.perRequest) this.last = specialise(last, s, this.prompt);
      return true;
    }
    // The run's shape a stream's own was made from is tried again: another id within one stream still matches it.
    for (const shape of this.shapes.list) {
      if (shape === last || !this.read(shape, s)) continue;
      this.last = shape.perRequest ? specialise(shape, s, this.prompt) : shape;
      return true;
    }
    return false;
  }

  private read(shape: Shape, s: string): boolean {
    const { fixed, keys, strings } = shape;
    let content = '';
    let completion: unknown;
    let prompt = shape.promptTokens;
    let pos = 0;
    for (let k = 0; k < keys.length; k++) {
      // A slice compared whole: V8 compares two flat strings as memory (docs/performance.md#chunk-template).
      const f = fixed[k];
      if (s.slice(pos, pos + f.length) !== f) return false;
      pos += f.length;
      SLOT_AT[k] = pos;
      pos = strings[k] ? this.readString(s, pos) : this.readNumber(s, pos);
      if (pos < 0) return false;
      SLOT_END[k] = pos;
      const key = keys[k];
      if (key === 'content') content = this.value as string;
      else if (key === 'completion_tokens') completion = this.value;
      else if (key === 'prompt_tokens') prompt = this.value;
    }
    const end = fixed[fixed.length - 1];
    if (pos + end.length !== s.length || s.slice(pos) !== end) return false;
    this.content = content;
    this.completion = completion;
    this.prompt = prompt;
    return true;
  }

  /**
   * Learns `s` (whose JSON.parse value is `event`) when it is a plain text
   * chunk whose values can be found in its text without doubt; checked by
   * parsing the text once more with other values in their places.
   */
  learn(s: string, event: Json): void {
    const plan = plainChunk(event);
    if (plan === null || this.learnsLeft === 0) return;
    this.learnsLeft--;
    const slots: Slot[] = [];
    for (const [key, literal] of plan.literals) {
      const needle = `"${key}":${literal}`;
      const at = s.indexOf(needle);
      if (at < 0 || s.indexOf(needle, at + 1) >= 0) return; // not there as written, or there twice
      const from = at + key.length + 3;
      slots.push({ at: from, end: from + literal.length, key });
    }
    slots.sort((a, b) => a.at - b.at);
    const fixed: string[] = [];
    let pos = 0;
    for (const slot of slots) {
      fixed.push(s.slice(pos, slot.at));
      pos = slot.end;
    }
    fixed.push(s.slice(pos));
    if (!probe(fixed, slots, plan.promptTokens)) return;
    const keys = slots.map((x) => x.key);
    const shape: Shape = {
      fixed,
      keys,
      strings: keys.map((k) => k === 'content' || k === 'id'),
      promptTokens: plan.promptTokens,
      perRequest: keys.some((k) => PER_REQUEST[k]),
    };
    this.shapes.add(shape);
    this.last = shape; // the run's: the stream's next match makes it its own
  }

  /** A string literal at s[i], checked as JSON.parse checks it, its value into `value`; the index after it or -1. */
  private readString(s: string, i: number): number {
    if (s.charCodeAt(i) !== QUOTE) return -1;
    let escaped = false;
    for (let j = i + 1; ; j++) {
      const c = s.charCodeAt(j);
      if (c === QUOTE) {
        // Escapes are rare in a token's text: JSON.parse of the literal alone gives them exactly.
        this.value = escaped ? (JSON.parse(s.slice(i, j + 1)) as string) : s.slice(i + 1, j);
        return j + 1;
      }
      if (c === BACKSLASH) {
        const e = s.charCodeAt(j + 1);
        if (e === 0x75) {
          if (!(hex(s, j + 2) && hex(s, j + 3) && hex(s, j + 4) && hex(s, j + 5))) return -1;
          j += 5;
        } else if (
          e === QUOTE ||
          e === BACKSLASH ||
          e === 0x2f ||
          e === 0x62 ||
          e === 0x66 ||
          e === 0x6e ||
          e === 0x72 ||
          e === 0x74
        )
          j += 1;
        else return -1;
        escaped = true;
      } else if (!(c >= 0x20)) return -1; // a control character, or the text's end (NaN)
    }
  }

  /** A number literal at s[i] by JSON's grammar, its value into `value`; the index after it or -1. */
  private readNumber(s: string, i: number): number {
    let j = i;
    if (s.charCodeAt(j) === MINUS) j++;
    let c = s.charCodeAt(j);
    if (c === ZERO) j++;
    else if (c > ZERO && c <= NINE) j = digits(s, j + 1);
    else return -1;
    const whole = j;
    if (s.charCodeAt(j) === 0x2e) {
      const k = digits(s, j + 1);
      if (k === j + 1) return -1;
      j = k;
    }
    c = s.charCodeAt(j);
    if (c === 0x65 || c === 0x45) {
      j++;
      c = s.charCodeAt(j);
      if (c === 0x2b || c === MINUS) j++;
      const k = digits(s, j);
      if (k === j) return -1;
      j = k;
    }
    // A short non-negative integer (every token count) is summed as read: Number() of a slice made a match
    // dearer (docs/performance.md#chunk-template). Anything else goes through Number(), which is exact for a JSON number.
    if (whole === j && j - i <= 15 && s.charCodeAt(i) !== MINUS) {
      let n = 0;
      for (let k = i; k < j; k++) n = n * 10 + (s.charCodeAt(k) - ZERO);
      this.value = n;
    } else this.value = Number(s.slice(i, j));
    return j;
  }
}

function digits(s: string, j: number): number {
  for (;;) {
    const c = s.charCodeAt(j);
    if (c >= ZERO && c <= NINE) j++;
    else return j;
  }
}

function hex(s: string, j: number): boolean {
  const c = s.charCodeAt(j) | 0x20;
  return (c >= ZERO && c <= NINE) || (c >= 0x61 && c <= 0x66);
}

/**
 * The stream's own copy of a run's shape `s` just matched (read() left its
 * slots' places in SLOT_AT/SLOT_END): the per-request slots and the text
 * around them become one fixed piece, cut from `s` itself, so the values
 * the copy matches are this request's (the same text, the same JSON value).
 * Still exact for the slots left: the run's shape passed the check parse.
 */
function specialise(shape: Shape, s: string, prompt: unknown): Shape {
  const fixed: string[] = [];
  const keys: SlotKey[] = [];
  const strings: boolean[] = [];
  let from = 0;
  for (let k = 0; k < shape.keys.length; k++) {
    const key = shape.keys[k];
    if (PER_REQUEST[key]) continue;
    fixed.push(s.slice(from, SLOT_AT[k]));
    keys.push(key);
    strings.push(shape.strings[k]);
    from = SLOT_END[k];
  }
  fixed.push(s.slice(from));
  return { fixed, keys, strings, promptTokens: prompt, perRequest: false };
}

/**
 * The literals to find in a plain text chunk's text — its content, its whole
 * token counts, its id and creation time, as JSON.stringify writes them — or
 * null for any other chunk: the parser reads more of it (an error, metrics,
 * audio, token ids, more than one choice) or its values are not the common
 * kinds. `promptTokens` is the prompt's count when it is not one of the
 * literals (absent, null, or not a whole number): then it is fixed text.
 */
function plainChunk(event: Json): { literals: [SlotKey, string][]; promptTokens: unknown } | null {
  if (event.modality !== 'text' || (event.error !== undefined && event.error !== null)) return null;
  if (event.metrics !== undefined && event.metrics !== null) return null;
  const choices = event.choices;
  if (!Array.isArray(choices) || choices.length !== 1 || !isObject(choices[0])) return null;
  const choice = choices[0];
  if (choice.token_ids !== undefined && choice.token_ids !== null) return null;
  const delta = choice.delta;
  if (!isObject(delta) || typeof delta.content !== 'string') return null;
  if (delta.audio !== undefined && delta.audio !== null) return null;
  const usage = event.usage;
  if (!isObject(usage) || !isCount(usage.completion_tokens)) return null;
  const pt = usage.prompt_tokens;
  if (pt !== undefined && pt !== null && typeof pt !== 'number') return null;
  const literals: [SlotKey, string][] = [
    ['content', JSON.stringify(delta.content)],
    ['completion_tokens', String(usage.completion_tokens)],
  ];
  if (usage.total_tokens !== undefined) {
    if (!isCount(usage.total_tokens)) return null;
    literals.push(['total_tokens', String(usage.total_tokens)]);
  }
  // Per request, not per chunk: slots, so that the run's next requests read as this one.
  if (isCount(pt)) literals.push(['prompt_tokens', String(pt)]);
  if (typeof event.id === 'string') literals.push(['id', JSON.stringify(event.id)]);
  if (isCount(event.created)) literals.push(['created', String(event.created)]);
  return { literals, promptTokens: isCount(pt) ? undefined : pt };
}

const isCount = (v: unknown): v is number => typeof v === 'number' && Number.isSafeInteger(v) && v >= 0;

/** Values unlike any a chunk carries, put in the slots by the check below. */
const PROBES: Readonly<Record<SlotKey, string>> = {
  content: '"\\u0000probe"',
  completion_tokens: '987654321',
  total_tokens: '987654322',
  prompt_tokens: '987654323',
  id: '"\\u0000probe-id"',
  created: '987654324',
};

/**
 * The check that the slots are where the values are read from: the text
 * with other values in their places, parsed in full, must carry exactly
 * those values where the parser reads them and nothing else changed.
 */
function probe(fixed: string[], slots: Slot[], promptTokens: unknown): boolean {
  let text = fixed[0];
  for (let k = 0; k < slots.length; k++) text += PROBES[slots[k].key] + fixed[k + 1];
  let event: unknown;
  try {
    event = JSON.parse(text);
  } catch {
    return false;
  }
  const plan = isObject(event) ? plainChunk(event) : null;
  if (plan === null || !Object.is(plan.promptTokens, promptTokens) || plan.literals.length !== slots.length)
    return false;
  return plan.literals.every(([key, literal]) => literal === PROBES[key]);
}
