/**
 * The requests a trip names as its evidence: the last MAX_EVIDENCE of them
 * (the ones nearest the trip), the rest counted, so a rule over a million
 * requests keeps a fixed few indices.
 */
import { MAX_EVIDENCE, type StoppedBy } from '../../../shared/config/stopRules.ts';

export class Evidence {
  private readonly ring = new Int32Array(MAX_EVIDENCE);
  private count = 0;

  add(index: number): void {
    this.ring[this.count++ % MAX_EVIDENCE] = index;
  }

  clear(): void {
    this.count = 0;
  }

  get size(): number {
    return this.count;
  }

  /** The kept indices in order, with their ids, and how many were left out. */
  named(requestId: (index: number) => string): Pick<StoppedBy, 'requests' | 'omitted'> {
    const kept = Math.min(this.count, MAX_EVIDENCE);
    const out: StoppedBy['requests'] = [];
    for (let k = this.count - kept; k < this.count; k++) {
      const index = this.ring[k % MAX_EVIDENCE];
      out.push({ index, requestId: requestId(index) });
    }
    return { requests: out, omitted: this.count - kept };
  }
}

/** Evidence from a list of indices (the requests in flight, a window's failures). */
export function namedIndices(
  indices: Iterable<number>,
  requestId: (index: number) => string,
): Pick<StoppedBy, 'requests' | 'omitted'> {
  const e = new Evidence();
  for (const i of indices) e.add(i);
  return e.named(requestId);
}
