/**
 * The run's socket reads (docs/design.md#read-time): each is timestamped with
 * the run's clock when Node reads it from its socket, and handled — the
 * response framed and parsed, its request ended — at the end of the event
 * loop's turn that read it (a setImmediate: after the turn's I/O), in the
 * order read. Handled at once, a read waited for every read of the same turn
 * before it: its response parsed, its request ended, the next request built
 * and sent: responses arriving together were each charged with the client's
 * work on the ones before (docs/performance.md#read-time); stamped at the read, they are not.
 *
 * Bounded by what one turn reads: libuv reads a ready socket until the kernel
 * has no more for it (at most 32 reads of 64 KB), and nothing more is read
 * from it before these are handled (the next poll comes after them), so what
 * is held is at most what the sockets' receive buffers held, and a server
 * faster than the client is still held back by TCP's flow control. (Above
 * ~1,024 ready sockets one poll may read a socket twice: a run's sockets are
 * its concurrency.)
 */

/** What a read belongs to: a run's connection (connection.ts). */
export interface ReadSource {
  /** Its reads not handled yet. */
  unread: number;
  /** Handles one read; `readT` = when it was read. */
  handle(chunk: Buffer, readT: number): void;
}

export class ReadTurn {
  /** The reads not handled yet, in the order read: their connection, bytes and time. */
  private readonly conns: ReadSource[] = [];
  private readonly chunks: Buffer[] = [];
  private readonly times: number[] = [];
  private immediate: NodeJS.Immediate | null = null;
  private draining = false;

  constructor(
    /** The run's clock (monotonic seconds), the one its records' times are read on. */
    private readonly now: () => number,
  ) {}

  /** A read of `c`'s socket: stamped now, handled at the end of this turn. */
  push(c: ReadSource, chunk: Buffer): void {
    this.conns.push(c);
    this.chunks.push(chunk);
    this.times.push(this.now());
    c.unread++;
    this.immediate ??= setImmediate(this.onTurnEnd);
  }

  /**
   * Handles every read not handled yet, now: a socket's end, error or close
   * comes after its reads, and the run's sweep hands over what was read
   * before it closes anything. Within the turn's own pass it is that pass's.
   */
  flush(): void {
    if (this.draining || this.conns.length === 0) return;
    if (this.immediate) clearImmediate(this.immediate);
    this.immediate = null;
    this.handleAll();
  }

  private readonly onTurnEnd = (): void => {
    this.immediate = null;
    this.handleAll();
  };

  private handleAll(): void {
    const { conns, chunks, times } = this;
    this.draining = true;
    try {
      // The length is read each time round: a read handled here never queues another, but nothing is lost if it did.
      for (let i = 0; i < conns.length; i++) {
        const c = conns[i];
        c.unread--;
        c.handle(chunks[i], times[i]);
      }
    } finally {
      this.draining = false;
      conns.length = 0;
      chunks.length = 0;
      times.length = 0;
    }
  }
}
