/**
 * What the rows draw beside their own times, derived from the run model once
 * per change: each request's Code2Wav ops, the stall reports naming it, and
 * the time it spent queued behind a stalled op.
 */
import { useMemo } from 'react';
import type { OpRecord, RunModel } from '../../../shared/runView/runModel.ts';
import { blockedWaits } from '../../../shared/runView/runStory.ts';

const NO_OPS: OpRecord[] = [];

export function useTimelineRowData(model: RunModel, nowT: number) {
  const rows = model.requests;
  // Time each request spent queued behind a stalled op, drawn as its own segment.
  const waits = useMemo(
    () => blockedWaits({ ops: model.ops, opsByRequest: model.opsByRequest, requests: rows }, nowT),
    [model.ops, model.opsByRequest, rows, nowT],
  );

  // Stall markers by request id, recomputed only when stalls change.
  const stallTsById = useMemo(() => {
    const m = new Map<string, number[]>();
    for (const s of model.stalls) for (const id of s.report.requestIds) m.set(id, [...(m.get(id) ?? []), s.t]);
    return m;
  }, [model.stalls]);

  // One ops array per request and model version, so memoized rows skip redraws when nothing changed for them.
  const opsOf = useMemo(() => opsLookup(model.opsByRequest, model.ops), [model.opsByRequest, model.ops]);

  return { waits, stallTsById, opsOf };
}

export type TimelineRowData = ReturnType<typeof useTimelineRowData>;

/** A request's ops, each array built on first ask (only rows in view ask) and then the same array. */
function opsLookup(opsByRequest: RunModel['opsByRequest'], ops: RunModel['ops']): (requestId: string) => OpRecord[] {
  const cache = new Map<string, OpRecord[]>();
  return (requestId) => {
    let v = cache.get(requestId);
    if (!v) {
      const keys = opsByRequest[requestId];
      v = keys ? keys.map((k) => ops[k]).filter(Boolean) : NO_OPS;
      cache.set(requestId, v);
    }
    return v;
  };
}
