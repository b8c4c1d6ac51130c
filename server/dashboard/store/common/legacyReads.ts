/**
 * A store's runs read under today's names (docs/design.md#legacy-names): a
 * database written by an older dashboard, or fed by older reporters, holds
 * their names in its events, summaries and states. Its reads of them pass
 * through shared/protocol/legacyNames.ts, whichever store is behind, so the
 * hub, the REST replies, the live stream, the exports and `db import`/`export`
 * see one vocabulary. A stored event with nothing old is handed on unparsed.
 */
import {
  stateWithNewNames,
  storedEventWithNewNames,
  summaryWithNewNames,
} from '../../../../shared/protocol/legacyNames.ts';
import type { DashboardStore } from './storeApi.ts';

/** `store`, its event and run reads giving today's names (the same object: its run reads wrapped in place). */
export function readingNewNames<S extends DashboardStore>(store: S): S {
  const reads = store.runReads;
  const eventsAfter = reads.eventsAfter.bind(reads);
  const get = reads.get.bind(reads);
  reads.eventsAfter = async (id, after, limit) => {
    const events = await eventsAfter(id, after, limit);
    for (const e of events) e.json = storedEventWithNewNames(e.json);
    return events;
  };
  reads.get = async (id) => {
    const row = await get(id);
    return row && { ...row, summary: summaryWithNewNames(row.summary), state: stateWithNewNames(row.state) };
  };
  return store;
}
