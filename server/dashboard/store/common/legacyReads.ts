/**
 * Stored events read under today's names (docs/design.md#legacy-names): a
 * database written by an older dashboard, or fed by older reporters, holds
 * their names. Both stores' event reads pass through here (and their run rows
 * through `toStoredRun`, runRows.ts), so the hub, the REST replies, the live
 * stream, the exports and `db import`/`export` see one vocabulary, however the
 * store was opened. An event with nothing old is handed on unparsed.
 */
import { storedEventWithNewNames } from '../../../../shared/protocol/legacyNames.ts';
import type { StoredEvent } from './records.ts';

/** `events` with each JSON under today's names (in place: the array a store's query just made). */
export function eventsWithNewNames<E extends StoredEvent>(events: E[]): E[] {
  for (const e of events) e.json = storedEventWithNewNames(e.json);
  return events;
}
