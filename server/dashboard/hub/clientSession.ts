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
} from '../../../shared/protocol.ts';

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
      case 'subscribe': {
        const head = this.hub.headSeq(m.runId);
        if (head === null) {
          this.send({ type: 'run.removed', runId: m.runId });
          return;
        }
        this.cursors.set(m.runId, m.afterSeq);
        if (head > m.afterSeq) this.schedule(0);
        return;
      }
      case 'unsubscribe':
        this.cursors.delete(m.runId);
        return;
      default:
        return;
    }
  }

  onAppend(runId: string): void {
    if (this.cursors.has(runId)) this.schedule(this.batchMs);
  }

  onActiveChanged(): void {
    // Flush what subscribed runs already have first, so the snapshot never runs ahead of the deltas.
    this.flush();
    this.send({ type: 'snapshot', runs: this.hub.snapshot() });
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

  /** Sends every subscribed run's new events (bounded per frame); reschedules if more remain. */
  flush(): void {
    if (this.closed) return;
    if (this.timer) {
      clearTimeout(this.timer);
      this.timer = null;
    }
    if (this.transport.bufferedAmount() > this.maxBufferedBytes) {
      this.cursors.clear();
      this.send({ type: 'resync', reason: `client too slow: more than ${this.maxBufferedBytes} bytes unsent` });
      return;
    }
    let more = false;
    for (const [runId, cursor] of this.cursors) {
      const events = this.hub.readAfter(runId, cursor, this.maxEventsPerFrame);
      if (events.length === 0) continue;
      this.cursors.set(runId, events[events.length - 1].seq);
      this.transport.send(deltasFrame(runId, events));
      if (events.length === this.maxEventsPerFrame) more = true;
    }
    if (more) this.schedule(this.batchMs);
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
