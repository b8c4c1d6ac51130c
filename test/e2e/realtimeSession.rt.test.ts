/**
 * A realtime run from the dashboard, in Chromium against the real dashboard
 * and its embedded reproduction server (docs/design.md#realtime): the form's
 * backend choice moves the endpoint to /v1/realtime and offers the turns per
 * session; the run it starts hangs in Code2Wav, fails closed, and its page
 * draws each WebSocket session as one row with its turns, from the run's
 * live events. The preset for it is offered beside the chat one.
 */
import { describe, expect } from 'vitest';
import { screenshotPath } from '#test/helpers/browser.ts';
import { test as it } from '#test/helpers/browserFixtures.ts';

describe('a realtime run on the dashboard', () => {
  it.beforeAll(async ({ dashboard }) => {
    await dashboard.api('/api/health');
  }, 60_000);

  it('the form picks openai-realtime-tts; the run page shows each session as a row with its turns', async ({
    page,
    dashboard,
  }) => {
    await page.goto(`${dashboard.url}/#/new`);
    await page.getByTestId('preset-realtime-hang').waitFor();
    await page.getByTestId('preset-code2wav-hang').check();
    await expect.poll(() => page.locator('#f-endpoint').inputValue()).toBe('/v1/chat/completions');
    await expect.poll(() => page.locator('#f-turnsPerSession').count()).toBe(0);
    await page.locator('#f-backend').selectOption('openai-realtime-tts');
    // The endpoint was the chat default: it follows the backend.
    await expect.poll(() => page.locator('#f-endpoint').inputValue()).toBe('/v1/realtime');
    await page.locator('#f-turnsPerSession').fill('2');
    await page.locator('#f-numPrompts').fill('8');
    await page.locator('#f-maxConcurrency').fill('2');
    await page.getByTestId('start-run').click();
    await page.waitForURL(/#\/runs\//);
    await expect
      .poll(() => page.getByTestId('verdict-reasons').getAttribute('data-verdict'), { timeout: 30_000 })
      .toBe('failed_closed');

    // Four sessions of two turns; the first two ran at once (a slot per session) and hit the hang.
    const rows = page.getByTestId('session-row');
    await expect.poll(() => rows.count()).toBe(4);
    const turnsOf = (s: number) =>
      page
        .locator(`[data-testid="session-row"][data-session="${s}"] [data-testid="session-turn"]`)
        .evaluateAll((els) => els.map((e) => [e.getAttribute('data-turn'), e.getAttribute('data-status')]));
    const first = await turnsOf(0);
    expect(first.map(([t]) => t)).toEqual(['0', '1']);
    // The run stopped on a timeout: no turn of it completed after the hang, none is still in flight.
    const statuses = [...first, ...(await turnsOf(1))].map(([, s]) => s);
    expect(statuses.some((s) => s === 'timed_out')).toBe(true);
    for (const s of statuses) expect(['completed', 'timed_out', 'cancelled_after_timeout']).toContain(s);
    // A turn opens its request.
    await page.locator('[data-testid="session-row"][data-session="0"] [data-testid="session-turn"]').first().click();
    await expect.poll(() => page.getByTestId('request-detail').getAttribute('aria-label')).toBe('Request 0');
    await page.getByTestId('sessions').scrollIntoViewIfNeeded();
    await page.screenshot({ path: screenshotPath('realtime-sessions'), fullPage: true });
  }, 60_000);
});
