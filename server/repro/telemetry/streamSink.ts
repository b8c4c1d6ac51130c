/**
 * Telemetry as NDJSON lines on stdout or in a file (`--telemetry-file PATH|-`).
 * Writes are buffered by the stream; a stream that cannot keep up drops
 * events (counted) instead of growing without bound.
 */
import { createWriteStream, type WriteStream } from 'node:fs';
import type { Writable } from 'node:stream';
import type { TelemetryEvent } from '../../../shared/protocol/telemetry.ts';
import type { TelemetrySink } from './outbox.ts';

const MAX_PENDING_BYTES = 8 * 1024 * 1024;

export class StreamTelemetrySink implements TelemetrySink {
  private readonly out: Writable;
  private readonly ownsStream: boolean;
  private sent = 0;
  private dropped = 0;

  /** `target` is a file path, '-' for stdout, or a writable stream. */
  constructor(target: string | Writable) {
    if (typeof target !== 'string') {
      this.out = target;
      this.ownsStream = false;
    } else if (target === '-') {
      this.out = process.stdout;
      this.ownsStream = false;
    } else {
      this.out = createWriteStream(target, { flags: 'a' });
      this.ownsStream = true;
    }
    this.out.on('error', () => {
      /* counted through writableLength below; never crash the server */
    });
  }

  push(e: TelemetryEvent): void {
    if (this.out.writableLength > MAX_PENDING_BYTES || this.out.destroyed) {
      this.dropped++;
      return;
    }
    this.out.write(JSON.stringify(e) + '\n');
    this.sent++;
  }

  flush(): Promise<{ sent: number; dropped: number }> {
    return new Promise((resolve) => {
      const done = () => resolve({ sent: this.sent, dropped: this.dropped });
      if (this.out.destroyed || this.out.writableLength === 0) return done();
      this.out.write('', () => done());
    });
  }

  async close(): Promise<void> {
    await this.flush();
    if (this.ownsStream) await new Promise<void>((r) => (this.out as WriteStream).end(() => r()));
  }
}
