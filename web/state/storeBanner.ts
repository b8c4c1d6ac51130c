/** The words of the outage banner, from the store's health (pure: the component only shows them). */
import type { StoreHealth } from '../../shared/protocol/storeHealth.ts';
import { dateTime } from '../../shared/format.ts';

export function storeBannerText(h: StoreHealth | null): string | null {
  if (!h || h.connected) return null;
  const since = h.downSinceMs === null ? '' : ` since ${dateTime(h.downSinceMs)}`;
  return (
    `The database is unreachable${since}${h.lastError ? ` (${h.lastError})` : ''}: reports are kept in the ` +
    `dashboard's buffer (up to ${h.capacity.toLocaleString('en')} events) and written when it is back.`
  );
}
