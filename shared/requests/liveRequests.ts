/**
 * The requests of one run that have not ended, folded from its events by the
 * one request fold (requestLifecycle.ts), for the readers that keep only
 * those: the dashboard hub's tracker, the Perfetto export's in-flight
 * counter, the CLI progress bar. A row is made when a request is sent (or
 * otherwise begins) and leaves at its end (the caller reads it once, through
 * `lastRow`): a million-request run holds only its in-flight rows. A request
 * only queued costs 8 bytes (its queue time), not a row — a rate-inf run
 * queues every request at once — and an ended one a bit, so that its late
 * events are ignored.
 * Pure bookkeeping: no I/O.
 */
import {
  blankRequest,
  foldRequest,
  eventRequestIndex,
  tallyStep,
  type RequestEvent,
  type RequestLifecycle,
  type RequestStep,
  type RequestTally,
} from './requestLifecycle.ts';
import { countEndedMany, type EndedRequest } from './outcomes.ts';

export class LiveRequests {
  /** Rows of the requests begun and not ended, by dataset index. */
  readonly rows = new Map<number, RequestLifecycle>();
  private readonly queued = new QueuedRequests();
  private readonly ended = new IndexSet();
  private last: RequestLifecycle | null = null;

  /** `tally`: the run's counts and in-flight count, kept up to date with every step. */
  constructor(private readonly tally: RequestTally) {}

  /**
   * Folds one request event in and returns its step, or null when no row
   * changed (a request only queued, or one already ended). After a step that
   * ended the request, its row is no longer held here: `lastRow` has it.
   * No allocation but the end's (a live run's hottest event is `progress`).
   */
  apply(e: RequestEvent): RequestStep | null {
    const index = eventRequestIndex(e);
    if (this.ended.has(index)) return null;
    let row = this.rows.get(index);
    if (!row) {
      if (e.type === 'request.queued') {
        this.queued.set(index, e.t, e.requestId);
        return null;
      }
      row = blankRequest(index);
      const q = this.queued.take(index);
      if (q) foldRequest(row, { type: 'request.queued', t: q.t, index, requestId: q.requestId });
      this.rows.set(index, row);
    }
    const step = foldRequest(row, e);
    tallyStep(this.tally, step);
    if (step.ended) {
      this.queued.learn(index, row.requestId);
      this.rows.delete(index);
      this.ended.add(index);
    }
    this.last = row;
    return step;
  }

  /**
   * Ends requests [from, to) as unsent, together (`requests.unsent`;
   * docs/design.md#bulk-unsent): they never began, so no row is dropped; their
   * counts are added in one step and any later event of theirs is ignored.
   * Rows of begun requests in the range (none, from the engine) end with them.
   */
  endRange(from: number, to: number, ended: EndedRequest, n: number): void {
    this.ended.addRange(from, to);
    for (const [index, row] of this.rows) {
      if (index < from || index >= to) continue;
      this.rows.delete(index);
      if (row.status === 'sent' || row.status === 'streaming') this.tally.inFlight--;
    }
    countEndedMany(this.tally.counts, ended, n);
  }

  /** The row of the request the last step concerned (an ended one's too), until the next event. */
  get lastRow(): RequestLifecycle | null {
    return this.last;
  }

  /** What the engine's request ids are `<prefix><index>` of, once a queued request named one; else null. */
  get idPrefix(): string | null {
    return this.queued.idPrefix;
  }
}

/**
 * The requests queued and not begun, without a row or a string each: times
 * by dataset index (dense, NaN = not queued), and ids as the engine makes
 * them, `<prefix><index>`, so one prefix names them all; an id of another
 * form is kept as is.
 */
class QueuedRequests {
  private t = new Float64Array(0);
  private prefix: string | null = null;
  private readonly otherIds = new Map<number, string>();

  get idPrefix(): string | null {
    return this.prefix;
  }

  /** Learns the engine's id prefix from the first id of request `index` that ends in its index. */
  learn(index: number, requestId: string): void {
    const suffix = String(index);
    if (this.prefix === null && requestId.endsWith(suffix)) this.prefix = requestId.slice(0, -suffix.length);
  }

  set(index: number, t: number, requestId: string): void {
    if (index >= this.t.length) {
      const grown = new Float64Array(Math.max(1024, this.t.length * 2, index + 1)).fill(Number.NaN);
      grown.set(this.t);
      this.t = grown;
    }
    this.t[index] = t;
    this.learn(index, requestId);
    const suffix = String(index);
    const p = this.prefix;
    const engineMade =
      p !== null &&
      requestId.length === p.length + suffix.length &&
      requestId.startsWith(p) &&
      requestId.endsWith(suffix);
    if (engineMade) this.otherIds.delete(index);
    else this.otherIds.set(index, requestId);
  }

  /** The queue time and id, once (they move into the request's row); null if not queued. */
  take(index: number): { t: number; requestId: string } | null {
    if (index >= this.t.length || Number.isNaN(this.t[index])) return null;
    const t = this.t[index];
    this.t[index] = Number.NaN;
    const other = this.otherIds.get(index);
    if (other === undefined) return { t, requestId: `${this.prefix}${index}` };
    this.otherIds.delete(index);
    return { t, requestId: other };
  }
}

/** A set of dataset indices, one bit each. */
class IndexSet {
  private bits = new Uint8Array(0);
  private readonly ranges: [number, number][] = [];

  add(index: number): void {
    const byte = Math.floor(index / 8);
    if (byte >= this.bits.length) {
      const grown = new Uint8Array(Math.max(128, this.bits.length * 2, byte + 1));
      grown.set(this.bits);
      this.bits = grown;
    }
    this.bits[byte] |= 1 << (index % 8);
  }

  has(index: number): boolean {
    const byte = Math.floor(index / 8);
    if (byte < this.bits.length && (this.bits[byte] & (1 << (index % 8))) !== 0) return true;
    for (const [from, to] of this.ranges) if (index >= from && index < to) return true;
    return false;
  }

  /** Every index in [from, to): a range kept as such (a stopped run ends its tail at once). */
  addRange(from: number, to: number): void {
    if (from < to) this.ranges.push([from, to]);
  }
}
