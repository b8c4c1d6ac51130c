/**
 * One WebSocket client. It holds only a cursor (last seq sent) per
 * subscribed run, so a slow client costs the server no memory: every
 * `batchMs` it reads what is new by seq (from the hub's ring or the store)
 * and sends it as one `deltas` frame per run. If the socket's unsent bytes
 * pass `maxBufferedBytes`, the client is told to `resync` and its
 * subscriptions are dropped; it re-subscribes from its last applied seq.
 */
import { Compile } from 'typebox/compile';
import {
  ClientMessageSchema,
  PROTOCOL_VERSION,
  type ClientMessage,
  type ServerMessage,
} from '../../../shared/protocol/protocol.ts';

const checkClientMessage = Compile(ClientMessageSchema);
import type { Hub, HubListener, StoredEvent } from './hub.ts';

export interface Transport {
  send(data: string): void;
  /** Bytes queued on the socket and not yet sent. */
  bufferedAmount(): number;
}

export interface SessionOptions {
  batchMs?: number;
  maxBufferedBytes?: number;
  maxEventsPerFrame?: number;
}

/** A `deltas` frame built from already-serialized events (no re-encoding on the hot path). */
export function deltasFrame(runId: string, events: StoredEvent[]): string {
  let body = '';
  for (let i = 0; i < events.length; i++) {
    body += `${i ? ',' : ''}{"seq":${events[i].seq},"event":${events[i].json}}`;
  }
  return `{"type":"deltas","runId":${JSON.stringify(runId)},"events":[${body}]}`;
}

export class ClientSession implements HubListener {
  private readonly cursors = new Map<string, number>();
  private timer: NodeJS.Timeout | null = null;
  private readonly unsubscribe: () => void;
  private closed = false;
  readonly batchMs: number;
  readonly maxBufferedBytes: number;
  readonly maxEventsPerFrame: number;

  constructor(
    private readonly hub: Hub,
    private readonly transport: Transport,
    opts: SessionOptions = {},
  ) {
    this.batchMs = opts.batchMs ?? 50;
    this.maxBufferedBytes = opts.maxBufferedBytes ?? 8 * 1024 * 1024;
    this.maxEventsPerFrame = opts.maxEventsPerFrame ?? 5000;
    this.unsubscribe = hub.subscribe(this);
    this.send({ type: 'hello', v: PROTOCOL_VERSION });
    this.send({ type: 'snapshot', runs: hub.snapshot() });
    this.send({ type: 'store', health: hub.store.ingest.health() });
  }

  onStoreHealth(): void {
    this.send({ type: 'store', health: this.hub.store.ingest.health() });
  }

  private send(m: ServerMessage): void {
    if (!this.closed) this.transport.send(JSON.stringify(m));
  }

  /** Handles one client frame; malformed frames are ignored (the protocol has no error reply). */
  handle(raw: string): void {
    let value: unknown;
    try {
      value = JSON.parse(raw);
    } catch {
      return;
    }
    if (!checkClientMessage.Check(value)) return;
    const m: ClientMessage = value;
    switch (m.type) {
      case 'subscribe':
        void this.subscribe(m.runId, m.afterSeq);
        return;
      case 'unsubscribe':
        this.cursors.delete(m.runId);
        return;
      default:
        return;
    }
  }

  private async subscribe(runId: string, afterSeq: number): Promise<void> {
    const head = await this.hub.headSeq(runId).catch(() => null);
    if (this.closed) return;
    if (head === null) {
      this.send({ type: 'run.removed', runId });
      return;
    }
    this.cursors.set(runId, afterSeq);
    if (head > afterSeq) this.schedule(0);
  }

  onAppend(runId: string): void {
    if (this.cursors.has(runId)) this.schedule(this.batchMs);
  }

  onActiveChanged(): void {
    // Flush what subscribed runs already have first, so the snapshot never runs ahead of the deltas.
    this.flush();
    if (this.flushing) this.snapshotDue = true;
    else this.send({ type: 'snapshot', runs: this.hub.snapshot() });
  }

  onRemoved(runId: string): void {
    this.cursors.delete(runId);
    this.send({ type: 'run.removed', runId });
  }

  private schedule(ms: number): void {
    if (this.timer || this.closed) return;
    this.timer = setTimeout(() => {
      this.timer = null;
      this.flush();
    }, ms);
  }

  /**
   * Sends every subscribed run's new events (bounded per frame); reschedules if more remain. One flush at a
   * time: a read from the store may wait, and a second flush meanwhile would send the same events twice.
   */
  flush(): void {
    if (this.closed) return;
    if (this.timer) {
      clearTimeout(this.timer);
      this.timer = null;
    }
    if (this.flushing) {
      this.again = true;
      return;
    }
    if (this.transport.bufferedAmount() > this.maxBufferedBytes) {
      this.cursors.clear();
      this.send({ type: 'resync', reason: `client too slow: more than ${this.maxBufferedBytes} bytes unsent` });
      return;
    }
    const sent = this.sendFrom([...this.cursors], 0, false);
    if (typeof sent === 'boolean') this.flushed(sent);
    else {
      this.flushing = true;
      void sent.then(
        (more) => this.flushed(more),
        () => this.flushed(true),
      );
    }
  }

  /** A read from the store is in progress. */
  private flushing = false;
  /** Something was appended while a flush was reading. */
  private again = false;
  /** A snapshot waits for the flush in progress. */
  private snapshotDue = false;

  private flushed(more: boolean): void {
    this.flushing = false;
    if (this.snapshotDue) {
      this.snapshotDue = false;
      this.send({ type: 'snapshot', runs: this.hub.snapshot() });
    }
    if (this.again) {
      this.again = false;
      this.schedule(0);
    } else if (more) this.schedule(this.batchMs);
  }

  /**
   * Sends what is new for the cursors from `i` on; true when a run has more than one frame's worth. At once
   * while the hub answers from memory; a promise once one read goes to the store.
   */
  private sendFrom(list: [string, number][], i: number, more: boolean): boolean | Promise<boolean> {
    for (; i < list.length; i++) {
      const [runId, cursor] = list[i];
      const got = this.hub.readAfter(runId, cursor, this.maxEventsPerFrame);
      if (!Array.isArray(got)) {
        const next = i + 1;
        return got.then((events) => this.sendFrom(list, next, this.sendEvents(runId, cursor, events) || more));
      }
      more = this.sendEvents(runId, cursor, got) || more;
    }
    return more;
  }

  /** One deltas frame; true when it is full. */
  private sendEvents(runId: string, cursor: number, events: StoredEvent[]): boolean {
    // Closed, unsubscribed, or subscribed again from another seq while a read waited.
    if (this.closed || events.length === 0 || this.cursors.get(runId) !== cursor) return false;
    this.cursors.set(runId, events[events.length - 1].seq);
    this.transport.send(deltasFrame(runId, events));
    return events.length === this.maxEventsPerFrame;
  }

  subscriptions(): Map<string, number> {
    return new Map(this.cursors);
  }

  close(): void {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.unsubscribe();
  }
}
