/**
 * Stopping runs from the run page, in Chromium: a run reported by a CLI
 * elsewhere (`--report-to`) says it is driven from there and offers Mark
 * abandoned instead of a Cancel that cannot work; once abandoned it reads
 * interrupted, a late batch from its CLI gets a 409, and Delete removes it.
 * A Cancel the server refuses is said beside the button, never by replacing
 * the page with "Something went wrong".
 */
import { describe, expect } from 'vitest';
import { CODE2WAV_HANG } from '#shared/config/presets.ts';
import { test as it, type Dashboard } from '#test/helpers/browserFixtures.ts';
import { completedRequest, runStarted } from '#test/helpers/sampleEvents.ts';

/** A POST whose answer the test reads itself (its status included). */
const poster = (dashboard: Dashboard) => (path: string, body: unknown) =>
  fetch(dashboard.url + path, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });

describe('stopping a run from its page, in Chromium', () => {
  // The dashboard (and the web build it serves) starts within this hook's minute, not in a test.
  it.beforeAll(async ({ dashboard }) => {
    await dashboard.api('/api/health');
  }, 60_000);

  it('a reported run: driven by a CLI elsewhere, marked abandoned, a late batch refused, then deleted', async ({
    page,
    dashboard,
  }) => {
    const post = poster(dashboard);
    const id = 'ci-nightly-4711';
    expect((await post('/api/runs/external', { runId: id, config: { numPrompts: 3, label: 'nightly' } })).status).toBe(
      201,
    );
    expect(
      (await post(`/api/runs/${id}/events`, { events: [runStarted(id, 3), ...completedRequest(id, 0)] })).status,
    ).toBe(200);
    await page.goto(`${dashboard.url}/#/runs/${id}`);
    const reported = page.getByTestId('reported-run');
    await expect
      .poll(() => reported.textContent())
      .toMatch(/^Driven by stallscope bench --report-to from a CLI on another machine or CI job: stop it there/);
    await expect.poll(() => page.getByTestId('cancel-run').count()).toBe(0);

    await page.getByTestId('abandon-run').click();
    await page.getByTestId('confirm-abandon').click();
    await expect.poll(() => page.getByTestId('run-status').getAttribute('data-status')).toBe('interrupted');
    await expect
      .poll(() => page.getByTestId('interrupt-cause').textContent())
      .toBe('marked abandoned in the dashboard');
    await expect
      .poll(() => page.getByTestId('status-message').textContent())
      .toMatch(/^marked abandoned in the dashboard/);
    await expect.poll(() => reported.count()).toBe(0);
    await expect.poll(() => page.getByText('Something went wrong').count()).toBe(0);

    // The CLI, still running somewhere, posts again: refused, saying why.
    const late = await post(`/api/runs/${id}/events`, { events: completedRequest(id, 1) });
    expect(late.status).toBe(409);
    expect(((await late.json()) as { message: string }).message).toMatch(/it was marked abandoned in the dashboard/);

    await page.getByTestId('delete-run').click();
    await page.getByTestId('confirm-delete-run').click();
    await page.getByTestId('runs-page').waitFor();
    expect((await fetch(`${dashboard.url}/api/runs/${id}`)).status).toBe(404);
  });

  it('a Cancel the server refuses is said beside the button; the page stays', async ({ page, dashboard }) => {
    const post = poster(dashboard);
    const res = await post('/api/runs', { ...CODE2WAV_HANG.spec, label: 'cancel refused', timeouts: { totalS: 60 } });
    const { id } = (await res.json()) as { id: string };
    try {
      // As when the run ends between the page's last frame and the click.
      await page.route('**/api/runs/*/cancel', (route) =>
        route.fulfill({
          status: 409,
          contentType: 'application/json',
          body: JSON.stringify({ code: 'API_CONFLICT', message: `conflict: run ${id} is not running (finished)` }),
        }),
      );
      await page.goto(`${dashboard.url}/#/runs/${id}`);
      await page.getByTestId('cancel-run').click();
      await page.getByTestId('confirm-cancel').click();
      await expect
        .poll(() => page.getByTestId('cancel-run-error').textContent())
        .toBe(`conflict: run ${id} is not running (finished)`);
      await expect.poll(() => page.getByText('Something went wrong').count()).toBe(0);
      await expect.poll(() => page.getByTestId('run-page').count()).toBe(1);
    } finally {
      await page.unroute('**/api/runs/*/cancel');
      await post(`/api/runs/${id}/cancel`, {});
    }
  });
});
