/**
 * The requests not yet ended (shared/requests/liveRequests.ts), as the hub, the
 * Perfetto export and the CLI progress bar keep them: no row for a request
 * only queued (its time and id come back when it is sent), none after its
 * end, and an ended request's late events ignored.
 */
import { describe, expect, it } from 'vitest';
import type { RequestOutcome } from '#shared/protocol/protocol.ts';
import { emptyCounts } from '#shared/requests/outcomes.ts';
import { LiveRequests } from '#shared/requests/liveRequests.ts';
import type { RequestTally } from '#shared/requests/requestLifecycle.ts';

const completed = (index: number, requestId: string): RequestOutcome => ({
  index,
  requestId,
  status: 'completed',
  ttftS: 0.1,
  e2elS: 1,
  audioTtfpS: 0,
  audioDurationS: 0,
  outputTokens: 3,
  promptLen: 2,
  attempts: 1,
  error: '',
  sentT: 4,
});

function make(): { live: LiveRequests; tally: RequestTally } {
  const tally: RequestTally = { counts: emptyCounts(3), inFlight: 0 };
  return { live: new LiveRequests(tally), tally };
}

describe('LiveRequests', () => {
  it('keeps no row for a request only queued; its queue time and id come back in its row when it begins', () => {
    const { live } = make();
    for (let i = 0; i < 3; i++)
      expect(live.apply({ type: 'request.queued', t: i, index: i, requestId: `run-${i}` })).toBeNull();
    expect(live.rows.size).toBe(0);
    // Its send was lost: the first token begins it, named by its queued id.
    live.apply({ type: 'request.first_token', t: 9, index: 2, ttftS: 0.009 });
    expect(live.rows.get(2)).toMatchObject({ requestId: 'run-2', status: 'streaming', queuedT: 2, firstTokenT: 9 });
    expect(live.rows.size).toBe(1);
  });

  it('keeps an id of another form than <prefix><index> as it came', () => {
    const { live } = make();
    live.apply({ type: 'request.queued', t: 0, index: 0, requestId: 'job-0' });
    live.apply({ type: 'request.queued', t: 1, index: 1, requestId: 'custom' });
    live.apply({ type: 'request.progress', t: 2, index: 1, outputTokens: 1, audioS: 0 });
    live.apply({ type: 'request.progress', t: 2, index: 0, outputTokens: 1, audioS: 0 });
    expect(live.rows.get(1)?.requestId).toBe('custom');
    expect(live.rows.get(0)?.requestId).toBe('job-0');
  });

  it('hands an ended row out once and forgets it; late events of that request change nothing', () => {
    const { live, tally } = make();
    live.apply({ type: 'request.sent', t: 1, index: 0, requestId: 'r-0', attempt: 1 });
    expect(tally.inFlight).toBe(1);
    const end = live.apply({ type: 'request.completed', t: 5, outcome: completed(0, 'r-0') });
    expect(end?.ended).toMatchObject({ status: 'completed' });
    expect(live.lastRow).toMatchObject({ status: 'completed', sentT: 4, endT: 5 });
    expect(live.rows.size).toBe(0);
    expect(tally).toMatchObject({ inFlight: 0, counts: { completed: 1 } });
    // No request revived: no row, no slot, no second count.
    expect(live.apply({ type: 'request.first_token', t: 6, index: 0, ttftS: 0.006 })).toBeNull();
    expect(live.apply({ type: 'request.completed', t: 7, outcome: completed(0, 'r-0') })).toBeNull();
    expect(live.rows.size).toBe(0);
    expect(tally).toMatchObject({ inFlight: 0, counts: { completed: 1 } });
  });

  it('tells the ended requests apart at any index (one bit each)', () => {
    const { live } = make();
    for (const i of [0, 7, 8, 1_000_003])
      live.apply({ type: 'request.completed', t: 1, outcome: completed(i, `r-${i}`) });
    for (const i of [0, 7, 8, 1_000_003])
      expect(live.apply({ type: 'request.sent', t: 2, index: i, requestId: `r-${i}`, attempt: 1 })).toBeNull();
    for (const i of [1, 6, 9, 1_000_002])
      expect(live.apply({ type: 'request.sent', t: 2, index: i, requestId: `r-${i}`, attempt: 1 })).not.toBeNull();
  });
});
