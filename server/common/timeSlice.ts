/**
 * Long synchronous work on the main thread (a 100,000-event batch, a 16 MB ingest body) done a few milliseconds at
 * a time, the event loop free between: `due()` is cheap enough to call for every item (it reads the clock once
 * every `every` calls); when it is true the caller does what must precede a pause and awaits `pause()`.
 */
import { setImmediate as nextTurn } from 'node:timers/promises';

export class TimeSlice {
  private start = performance.now();
  private calls = 0;

  constructor(
    private readonly ms = 8,
    private readonly every = 256,
  ) {}

  due(): boolean {
    return ++this.calls % this.every === 0 && performance.now() - this.start > this.ms;
  }

  /** Lets other work run, then starts a new slice. */
  async pause(): Promise<void> {
    await nextTurn();
    this.start = performance.now();
  }
}
