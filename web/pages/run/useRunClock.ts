/**
 * The run page's clock: whether the run is running, the wall clock (ticking
 * while it runs) and the run-clock time now (live) or at its end (replay).
 */
import type { RunDetail } from '../../../shared/protocol/apiSchemas.ts';
import { useNow } from '../../hooks/redraw.ts';
import type { RunModel } from '../../../shared/runView/runModel.ts';

export function useRunClock(model: RunModel | undefined, detail: RunDetail | null) {
  const running = model
    ? model.status === 'running' || (model.status === 'unknown' && detail?.status === 'running')
    : false;
  const now = useNow(running, 200);
  const startedAtMs = model?.startedAtMs ?? detail?.startedAtMs ?? null;
  const nowT = model
    ? running && startedAtMs !== null
      ? Math.max(model.lastT, now - startedAtMs)
      : (model.finishedT ?? model.lastT)
    : 0;
  return { running, now, nowT, startedAtMs };
}
