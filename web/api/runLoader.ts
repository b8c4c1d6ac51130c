/**
 * Loads one run into the store: its detail and the first page of its event
 * stream over REST together, then the rest page by page (each page is drawn as it lands), request rows for runs that
 * have no events (imports), and finally a live subscription from the last
 * seq loaded when the run is still active. Returns a stop function.
 */
import type { RunDetail } from '../../shared/protocol/apiSchemas.ts';
import { rowFromApi } from '../../shared/runView/storedRows.ts';
import type { AppServices } from './services.ts';
import type { RequestView } from '../../shared/runView/runModel.ts';
import { getEvents, getRequests, getRun } from './rest.ts';

export interface LoadCallbacks {
  onDetail(d: RunDetail): void;
  onError(e: unknown): void;
  onLoaded(): void;
}

export function loadRun(svc: AppServices, id: string, cb: LoadCallbacks): () => void {
  let stopped = false;
  let unwatch: (() => void) | null = null;
  const { store, live } = svc;
  (async () => {
    // The detail and the first page of events are asked together: one round trip before the page draws, not two.
    const firstPage = getEvents(id, store.getSnapshot().runs[id]?.seq ?? 0);
    // A run that is missing fails both: the detail's error is the one reported.
    firstPage.catch(() => undefined);
    const detail = await getRun(id);
    if (stopped) return;
    cb.onDetail(detail);
    store.dispatch({ type: 'watch', runId: id });
    for (let page = await firstPage; ;) {
      if (stopped) return;
      store.dispatch({ type: 'history', runId: id, events: page.events });
      if (!page.more || page.events.length === 0) break;
      page = await getEvents(id, store.getSnapshot().runs[id]?.seq ?? 0);
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
