/**
 * A reported run whose peer sent indexes far past what it declared opens
 * normally in the browser: the refused batches left nothing behind (it once
 * ran the page out of memory), and a later good batch shows.
 */
import { describe, expect } from 'vitest';
import { completedRequest, runStarted } from '#test/helpers/sampleEvents.ts';
import { test as it } from '#test/helpers/browserFixtures.ts';

describe('a run whose events were refused, in Chromium', () => {
  it('opens with its status and its one good request, no error page', async ({ dashboard, page }) => {
    const post = (path: string, body: unknown) =>
      fetch(dashboard.url + path, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    expect((await post('/api/runs/external', { runId: 'ci-refused', config: { numPrompts: 2 } })).status).toBe(201);
    const bad = [
      [runStarted('ci-refused', 2), { type: 'request.queued', t: 1, index: 1_500_000_000, requestId: 'x' }],
      [runStarted('ci-refused', 2), { type: 'request.queued', t: 1, index: 120_000_000, requestId: 'x' }],
    ];
    for (const events of bad) {
      const r = await post('/api/runs/ci-refused/events', { events });
      expect(r.status).toBe(400);
      expect(((await r.json()) as { field: string }).field).toBe('events.1.index');
    }
    const good = await post('/api/runs/ci-refused/events', {
      events: [runStarted('ci-refused', 2), ...completedRequest('ci-refused', 1)],
    });
    expect(await good.json()).toEqual({ lastSeq: 6 });
    await page.goto(`${dashboard.url}/#/runs/ci-refused`);
    await expect.poll(() => page.getByTestId('run-status').getAttribute('data-status')).toBe('running');
    await expect.poll(() => page.getByText('Something went wrong').count()).toBe(0);
    await expect.poll(() => page.getByTestId('run-missing').count()).toBe(0);
  }, 60_000);
});
