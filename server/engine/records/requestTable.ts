/**
 * Every request of a run, column-wise (docs/design.md#request-table): what
 * the metrics, the result file, the verdict and the Seed-TTS gate read of an
 * ended request, and how it ended. Numbers are typed arrays in lazily
 * allocated chunks (columns.ts), strings share one text store
 * (textStore.ts), ITL lists are packed one after another; a finished
 * request costs about a hundred bytes, however long the run. Everything is
 * read back through one accessor, `at(i)`, which builds a fresh record of
 * the same shape the stream parser filled, so every reader sees the values
 * that were written, exactly.
 *
 * The columns are a table (REQUEST_COLUMNS): a backend that measures more per
 * request adds its field to the record and one line here.
 */
import { ERRORS } from '../../../shared/errors.ts';
import type { RecordList } from '../../../shared/metrics/input.ts';
import {
  REQUEST_END_STATUSES,
  type RequestEndStatus,
  type StopCause,
  type TimeoutKind,
} from '../../../shared/types.ts';
import type { EndedRecord } from './record.ts';
import { BlockStore, FloatColumn, IndexColumn, NumberColumn } from './columns.ts';
import { TextStore } from './textStore.ts';

/** How one field is kept. */
export type ColumnSpec =
  /** A float64; `absent` fields (NaN stored) read back as undefined. */
  | { name: keyof EndedRecord; kind: 'float'; absent?: true }
  /** A count: the smallest typed array that holds it, float64 for anything else (exact either way). */
  | { name: keyof EndedRecord; kind: 'whole' }
  /** A boolean; `absent` fields (2 stored) read back as undefined. */
  | { name: keyof EndedRecord; kind: 'flag'; absent?: true }
  /** One of `values`, or null; `absent` fields (null stored) read back as undefined. */
  | { name: keyof EndedRecord; kind: 'choice'; values: readonly string[]; absent?: true }
  /**
   * A string in the shared text store; `intern`: the same string written again is stored once; `absent`
   * fields (undefined or '' stored) read back as undefined.
   */
  | { name: keyof EndedRecord; kind: 'text'; intern?: true; absent?: true }
  /** A list of float64 (the ITLs), packed. */
  | { name: keyof EndedRecord; kind: 'numbers' }
  /** A small JSON value, kept as its text (interned: many requests have the same); undefined reads back as undefined. */
  | { name: keyof EndedRecord; kind: 'json'; absent: true };

/** The record's fields, in the order the stream parser's records have them. */
export const REQUEST_COLUMNS: readonly ColumnSpec[] = [
  { name: 'success', kind: 'flag' },
  { name: 'error', kind: 'text', intern: true },
  { name: 'errorCode', kind: 'choice', values: Object.keys(ERRORS) },
  { name: 'ttft', kind: 'float' },
  { name: 'itl', kind: 'numbers' },
  { name: 'latency', kind: 'float' },
  { name: 'outputTokens', kind: 'whole' },
  { name: 'promptLen', kind: 'whole' },
  { name: 'generatedText', kind: 'text' },
  { name: 'audioTtfp', kind: 'float' },
  { name: 'audioDuration', kind: 'float' },
  { name: 'audioFrames', kind: 'whole' },
  { name: 'audioRtf', kind: 'float' },
  { name: 'textLatency', kind: 'float' },
  { name: 'startTime', kind: 'float' },
  { name: 'hasAudio', kind: 'flag' },
  { name: 'attempts', kind: 'whole' },
  { name: 'endTime', kind: 'float', absent: true },
  // Realtime turns (docs/design.md#realtime): the session, the turn's place and its receive times.
  { name: 'realtimeSessionId', kind: 'text', intern: true, absent: true },
  { name: 'realtimeTurn', kind: 'float', absent: true },
  { name: 'realtimeResponseId', kind: 'text', absent: true },
  { name: 'realtimeTrigger', kind: 'choice', values: ['explicit', 'vad'], absent: true },
  { name: 'realtimeTtftS', kind: 'float', absent: true },
  { name: 'realtimeTtfpS', kind: 'float', absent: true },
  { name: 'realtimeGenerationS', kind: 'float', absent: true },
  { name: 'realtimeAudioBytes', kind: 'float', absent: true },
  { name: 'realtimeDoneS', kind: 'float', absent: true },
  { name: 'realtimeStage0', kind: 'flag', absent: true },
  { name: 'realtimeTpotMs', kind: 'float', absent: true },
  // PCM streams (docs/design.md#speech-metrics): the continuity check, absent for other backends.
  { name: 'audioUnderrunS', kind: 'float', absent: true },
  { name: 'audioContinuityOk', kind: 'flag', absent: true },
  { name: 'audioUnderrunEventCount', kind: 'float', absent: true },
  // The engine's stage fields per request (docs/design.md#request-stage-metrics), when the server sent any.
  { name: 'stageSnapshot', kind: 'json', absent: true },
];

/** One column's storage: what it writes and reads back, and a range set to one value. */
interface Column {
  write(i: number, v: unknown): void;
  read(i: number): unknown;
  fill(from: number, to: number, v: unknown): void;
  /** Nothing but its empty value was ever written: every row reads what an unwritten one does. */
  readonly untouched: boolean;
  readonly bytes: number;
}

/** Values 64Ki-1 per ITL block: offsets in a block fit two bytes. */
const LIST_BLOCK = 0xffff;

/** A column of numbers through `encode`/`decode` (a flag, a choice, a text id, an absent float). */
class CodedColumn implements Column {
  constructor(
    private readonly c: NumberColumn | FloatColumn,
    private readonly encode: (v: unknown) => number,
    private readonly decode: (n: number) => unknown,
  ) {}

  write(i: number, v: unknown): void {
    this.c.set(i, this.encode(v));
  }

  read(i: number): unknown {
    return this.decode(this.c.get(i));
  }

  fill(from: number, to: number, v: unknown): void {
    this.c.fill(from, to, this.encode(v));
  }

  get untouched(): boolean {
    return this.c.untouched;
  }

  get bytes(): number {
    return this.c.bytes;
  }
}

const same = (v: unknown): number => v as number;

function column(spec: ColumnSpec, text: TextStore): Column {
  switch (spec.kind) {
    case 'float':
      return spec.absent
        ? new CodedColumn(
            new FloatColumn(NaN),
            (v) => (v === undefined || v === null ? NaN : (v as number)),
            (n) => (Number.isNaN(n) ? undefined : n),
          )
        : new CodedColumn(new FloatColumn(), same, same);
    case 'whole':
      return new CodedColumn(new NumberColumn(), same, same);
    case 'flag': {
      const absent = spec.absent === true;
      return new CodedColumn(
        new NumberColumn(absent ? 2 : 0),
        (v) => (absent && v === undefined ? 2 : v ? 1 : 0),
        (n) => (n === 2 ? undefined : n === 1),
      );
    }
    case 'choice':
      return choiceColumn(spec.values, spec.absent === true);
    case 'text': {
      const intern = spec.intern === true;
      const absent = spec.absent === true;
      return new CodedColumn(
        new NumberColumn(),
        (v) => (absent && v === undefined ? 0 : text.add(v as string, intern)),
        (n) => (absent && n === 0 ? undefined : text.get(n)),
      );
    }
    case 'numbers':
      return new ListColumn();
    case 'json':
      return new CodedColumn(
        new NumberColumn(),
        (v) => (v === undefined ? 0 : text.add(JSON.stringify(v), true)),
        (n) => (n === 0 ? undefined : (JSON.parse(text.get(n)) as unknown)),
      );
  }
}

/** One of `values` (stored as its position + 1) or null (0). */
function choiceColumn(values: readonly string[], absent = false): Column {
  const code = new Map(values.map((v, k) => [v, k + 1]));
  return new CodedColumn(
    new NumberColumn(),
    (v) => {
      if (v === null || v === undefined) return 0;
      const k = code.get(v as string);
      if (k === undefined) throw new Error(`not a value of this column: ${JSON.stringify(v)}`);
      return k;
    },
    (n) => (n === 0 ? (absent ? undefined : null) : values[n - 1]),
  );
}

/** Lists of float64 packed in blocks; per request where its list starts and how long it is. */
class ListColumn implements Column {
  private readonly store = new BlockStore((n) => new Float64Array(n), LIST_BLOCK);
  private readonly block = new IndexColumn();
  private readonly offset = new IndexColumn();
  private readonly length = new IndexColumn();
  private static readonly NONE = new Float64Array(0);

  write(i: number, v: unknown): void {
    const list = v as ArrayLike<number>;
    this.length.set(i, list.length);
    if (list.length === 0) return;
    const at = this.store.reserve(list.length);
    this.store.blocks[at.block].set(list, at.offset);
    this.block.set(i, at.block);
    this.offset.set(i, at.offset);
  }

  /** A view into the packed values (readers only read it). */
  read(i: number): Float64Array {
    const n = this.length.get(i);
    if (n === 0) return ListColumn.NONE;
    const from = this.offset.get(i);
    return this.store.blocks[this.block.get(i)].subarray(from, from + n);
  }

  fill(from: number, to: number, v: unknown): void {
    if ((v as ArrayLike<number>).length !== 0) throw new Error('only empty lists fill a range');
    this.length.fill(from, to, 0);
  }

  get untouched(): boolean {
    return this.length.untouched;
  }

  get bytes(): number {
    return this.store.bytes + this.block.bytes + this.offset.bytes + this.length.bytes;
  }
}

export class RequestTable implements RecordList<EndedRecord> {
  private readonly text = new TextStore();
  /**
   * The columns and the record field each keeps, side by side, walked by index: a `for…of` over [spec, column]
   * pairs ran the array iterator and a destructuring per column, 30 a request, before V8 optimised it.
   */
  private readonly names: (keyof EndedRecord)[];
  /**
   * Per column, whether it is an `absent` one (undefined reads back as undefined): a row is written once, on
   * a fresh row every column already holds its empty value, so an absent field of the record is skipped —
   * a chat run's records lack 12 of the 30 (the realtime and continuity columns), each a call or two, once a
   * request, in code that runs mostly unoptimised.
   */
  private readonly absent: boolean[];
  /**
   * Per column, what every row reads while the column is untouched: at() takes it without a read — a text
   * run that completes leaves 19 of the 30 columns untouched (audio, errors, realtime, continuity), and reading
   * each back was a decode and a chunk lookup a record, in the end-of-run pass that runs cold.
   */
  private readonly defaults: unknown[];
  private readonly columns: Column[];
  private readonly error: Column;
  private readonly status = choiceColumn(REQUEST_END_STATUSES);
  private readonly stop = choiceColumn(['breaker', 'interrupt']);
  private readonly timeout = choiceColumn(['total', 'first_byte', 'idle']);
  /** Run-clock ms of each request's first send; NaN: unsent. */
  private readonly sent = new FloatColumn(NaN);
  private readonly errorCode: Column;

  constructor(
    readonly length: number,
    /** The dataset's prompt length: what an unsent request reports (nothing of it is stored). */
    private readonly promptLenOf: (index: number) => number,
    specs: readonly ColumnSpec[] = REQUEST_COLUMNS,
  ) {
    this.names = specs.map((s) => s.name);
    this.absent = specs.map((s) => 'absent' in s && s.absent === true);
    this.columns = specs.map((s) => column(s, this.text));
    this.defaults = this.columns.map((c) => c.read(0));
    this.error = this.columns[this.names.indexOf('error')];
    this.errorCode = this.columns[this.names.indexOf('errorCode')];
  }

  /** Keeps an ended request's record (every column) and how it ended; a row is written once (a request ends once). */
  write(
    i: number,
    record: EndedRecord,
    status: RequestEndStatus,
    stoppedBy: StopCause | null,
    kind: TimeoutKind | null,
  ): void {
    const { names, columns, absent } = this;
    for (let k = 0; k < columns.length; k++) {
      const v = record[names[k]];
      if (v !== undefined || !absent[k]) columns[k].write(i, v);
    }
    this.status.write(i, status);
    this.stop.write(i, stoppedBy);
    this.timeout.write(i, kind);
  }

  /**
   * Requests [from, to) were unsent: one status, one stop cause, one
   * error for all, set a chunk at a time (their other columns were never
   * written: zeros, as an unsent record has them).
   */
  endUnsent(from: number, to: number, error: string, stoppedBy: StopCause | null): void {
    if (from >= to) return;
    this.status.fill(from, to, 'not_dispatched');
    this.stop.fill(from, to, stoppedBy);
    this.errorCode.fill(from, to, 'REQ_CANCELLED');
    this.error.fill(from, to, error); // interned: one string for all
  }

  setSentT(i: number, t: number): void {
    if (Number.isNaN(this.sent.get(i))) this.sent.set(i, t);
  }

  /** Run-clock ms of request i's first send, or null. */
  sentT(i: number): number | null {
    const t = this.sent.get(i);
    return Number.isNaN(t) ? null : t;
  }

  statusAt(i: number): RequestEndStatus {
    return this.status.read(i) as RequestEndStatus;
  }

  /** Request i's record as it was written: a fresh object each call. */
  at(i: number): EndedRecord {
    const r: Record<string, unknown> = {};
    const { names, columns, defaults } = this;
    for (let k = 0; k < columns.length; k++) {
      const c = columns[k];
      const v = c.untouched ? defaults[k] : c.read(i);
      if (v !== undefined) r[names[k]] = v;
    }
    if (this.status.read(i) === 'not_dispatched') r.promptLen = this.promptLenOf(i);
    return r as unknown as EndedRecord;
  }

  *[Symbol.iterator](): Iterator<EndedRecord> {
    for (let i = 0; i < this.length; i++) yield this.at(i);
  }

  /** End statuses in dataset order (an unended request reads null: none is left once the dispatch resolved). */
  readonly statuses: RecordList<RequestEndStatus> = listOf(this, (i) => this.status.read(i) as RequestEndStatus);
  readonly stoppedBy: RecordList<StopCause | null> = listOf(this, (i) => this.stop.read(i) as StopCause | null);
  readonly timeoutKinds: RecordList<TimeoutKind | null> = listOf(
    this,
    (i) => this.timeout.read(i) as TimeoutKind | null,
  );

  /** Bytes the table holds (tests). */
  get bytes(): number {
    let b = this.text.bytes + this.status.bytes + this.stop.bytes + this.timeout.bytes + this.sent.bytes;
    for (const c of this.columns) b += c.bytes;
    return b;
  }
}

/** A read-only list over one column. */
function listOf<T>(table: { length: number }, get: (i: number) => T): RecordList<T> {
  return {
    get length() {
      return table.length;
    },
    at: (i) => (i < 0 ? get(table.length + i) : get(i)),
    *[Symbol.iterator]() {
      for (let i = 0; i < table.length; i++) yield get(i);
    },
  };
}
