/** The outage banner's state: the store's health from the live stream, into the reducer, into words. */
import { describe, expect, it } from 'vitest';
import { initialState, reduce } from '#web/state/appReducer.ts';
import { storeBannerText } from '#web/state/storeBanner.ts';
import type { StoreHealth } from '#shared/protocol/storeHealth.ts';

const health = (h: Partial<StoreHealth>): StoreHealth => ({
  database: 'postgres',
  connected: true,
  buffered: 0,
  capacity: 200_000,
  downSinceMs: null,
  lastError: null,
  ...h,
});

describe('store banner', () => {
  it('shows while the database is away and goes when it is back', () => {
    const down = reduce(initialState, {
      type: 'server',
      msg: { type: 'store', health: health({ connected: false, downSinceMs: 0, lastError: 'ECONNREFUSED' }) },
    });
    expect(storeBannerText(down.store)).toMatch(/unreachable.*ECONNREFUSED.*200,000 events/);
    const up = reduce(down, { type: 'server', msg: { type: 'store', health: health({}) } });
    expect(storeBannerText(up.store)).toBeNull();
    expect(storeBannerText(initialState.store)).toBeNull();
  });
});
