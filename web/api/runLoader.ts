/**
 * Loads one run into the store: its detail, then its event stream over REST
 * page by page (each page is drawn as it lands), request rows for runs that
 * have no events (imports), and finally a live subscription from the last
 * seq loaded when the run is still active. Returns a stop function.
 */
import type { RequestRow as ApiRow, RunDetail } from '../../shared/apiSchemas.ts';
import { isRequestEndStatus, type RequestStatus } from '../../shared/types.ts';
import type { AppServices } from './services.ts';
import type { RequestView } from '../../shared/runView/runModel.ts';
import { getEvents, getRequests, getRun } from './rest.ts';

export interface LoadCallbacks {
  onDetail(d: RunDetail): void;
  onError(e: unknown): void;
  onLoaded(): void;
}

/** A stored request row as a timeline row. */
export function rowFromApi(r: ApiRow): RequestView {
  const status = r.status;
  return {
    index: r.index,
    requestId: r.requestId,
    status: r.status as RequestStatus,
    queuedT: r.queuedT,
    sentT: r.sentT,
    firstTokenT: r.firstTokenT,
    firstAudioT: r.firstAudioT,
    endT: r.endT,
    attempts: r.attempts,
    outputTokens: r.outputTokens,
    audioDurationS: r.audioDurationS,
    timeoutKind: r.timeoutKind,
    outcome: isRequestEndStatus(status)
      ? {
          index: r.index,
          requestId: r.requestId,
          status,
          ttftS: r.ttftS,
          e2elS: r.e2elS,
          audioTtfpS: r.audioTtfpS,
          audioDurationS: r.audioDurationS,
          outputTokens: r.outputTokens,
          promptLen: r.promptLen,
          attempts: r.attempts,
          error: r.error,
          sentT: r.sentT,
        }
      : null,
    // Imported runs carry no gate events; transcripts exist only for runs evaluated here.
    accuracy: null,
  };
}

export function loadRun(svc: AppServices, id: string, cb: LoadCallbacks): () => void {
  let stopped = false;
  let unwatch: (() => void) | null = null;
  const { store, live } = svc;
  (async () => {
    const detail = await getRun(id);
    if (stopped) return;
    cb.onDetail(detail);
    store.dispatch({ type: 'watch', runId: id });
    for (;;) {
      const after = store.getSnapshot().runs[id]?.seq ?? 0;
      const page = await getEvents(id, after);
      if (stopped) return;
      store.dispatch({ type: 'history', runId: id, events: page.events });
      if (!page.more || page.events.length === 0) break;
    }
    const m = store.getSnapshot().runs[id];
    if (m && m.seq === 0 && detail.counts.total > 0) {
      const rows: RequestView[] = [];
      for (let offset = 0; ;) {
        const page = await getRequests(id, offset, 5000);
        if (stopped) return;
        rows.push(...page.requests.map(rowFromApi));
        offset += page.requests.length;
        if (page.requests.length === 0 || offset >= page.total) break;
      }
      store.dispatch({ type: 'rows', runId: id, rows });
    }
    if (detail.active || detail.status === 'running') unwatch = live.watch(id);
    cb.onLoaded();
  })().catch((e) => {
    if (!stopped) cb.onError(e);
  });
  return () => {
    stopped = true;
    unwatch?.();
  };
}
