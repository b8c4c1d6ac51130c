/**
 * A copy-on-write working copy of a run model for one batch of events: each
 * collection is copied at most once per batch, each row at most once, so a
 * batch of thousands of events costs one array copy and the input model is
 * never written.
 */
import { emptyRow, type OpRecord, type RequestView, type RunModel } from './runModel.ts';

/** Mutable working copy of a model for one batch. */
export class Draft {
  m: RunModel;
  private rowsOwned = false;
  private ownedRows = new Set<number>();
  private owned = new Set<string>();
  constructor(base: RunModel) {
    this.m = { ...base };
  }
  /** Copy a top-level collection once per batch before writing into it. */
  own<K extends 'indexById' | 'ops' | 'opsByRequest' | 'stalls' | 'warnings' | 'pending' | 'counts' | 'unsent'>(
    k: K,
  ): RunModel[K] {
    if (!this.owned.has(k)) {
      this.owned.add(k);
      const v = this.m[k];
      (this.m as unknown as Record<string, unknown>)[k] = Array.isArray(v) ? [...v] : { ...v };
    }
    return this.m[k];
  }
  row(index: number, requestId?: string): RequestView {
    if (!this.rowsOwned) {
      this.rowsOwned = true;
      this.m.requests = [...this.m.requests];
    }
    const rows = this.m.requests;
    for (let i = rows.length; i <= index; i++) rows.push(emptyRow(i));
    if (!this.ownedRows.has(index)) {
      this.ownedRows.add(index);
      rows[index] = { ...rows[index] };
    }
    const r = rows[index];
    if (requestId && r.requestId !== requestId) {
      r.requestId = requestId;
      this.own('indexById')[requestId] = index;
    }
    return r;
  }
  op(key: string): OpRecord | undefined {
    const cur = this.m.ops[key];
    if (!cur) return undefined;
    if (!this.owned.has(`op:${key}`)) {
      this.owned.add(`op:${key}`);
      this.own('ops')[key] = { ...cur, phases: [...cur.phases] };
    }
    return this.m.ops[key];
  }
}
