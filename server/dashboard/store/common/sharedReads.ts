/**
 * Reads in flight by key: whoever asks for a read that is already running gets that read, not a second one
 * (viewers polling the same board at once; docs/design.md#board-cache). A read leaves the map when it settles.
 */
export class SharedReads<T> {
  private readonly running = new Map<string, Promise<T>>();

  /** The read running under `key`, or `start()`'s, shared until it settles. */
  share(key: string, start: () => Promise<T>): Promise<T> {
    const same = this.running.get(key);
    if (same) return same;
    const p = start();
    this.running.set(key, p);
    const done = () => void this.running.delete(key);
    p.then(done, done);
    return p;
  }
}
