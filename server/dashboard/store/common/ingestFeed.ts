/**
 * The live path's two ends that do not touch the database, the same on both
 * stores: what the store emits (numbered events, other processes' changes,
 * health) to whoever subscribed, and the live runs' states it stores with
 * each batch. Users hand the states in (`liveState`) rather than the store
 * asking for them, so the store never calls back into the hub.
 */
import type { RunState } from '../../../../shared/protocol/protocol.ts';
import type { RemoteChange } from './records.ts';
import type { IngestListener } from './storeApi.ts';

export class IngestFeed {
  private readonly listeners = new Set<Partial<IngestListener>>();
  private readonly states = new Map<string, RunState>();

  subscribe(l: Partial<IngestListener>): () => void {
    this.listeners.add(l);
    return () => this.listeners.delete(l);
  }

  liveState(runId: string, state: RunState | null): void {
    if (state) this.states.set(runId, state);
    else this.states.delete(runId);
  }

  /** The state to store with a batch of the run's events (undefined once the run is not live here). */
  stateOf(runId: string): RunState | undefined {
    return this.states.get(runId);
  }

  numbered(runId: string, seq: number, json: string): void {
    for (const l of this.listeners) l.numbered?.(runId, seq, json);
  }

  remote(c: RemoteChange): void {
    for (const l of this.listeners) l.remote?.(c);
  }

  healthChanged(): void {
    for (const l of this.listeners) l.healthChanged?.();
  }
}
