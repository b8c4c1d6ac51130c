/**
 * Stop rules and liveness at the stall in Chromium, against the real
 * dashboard and its embedded reproduction server (docs/design.md#stop-rules,
 * docs/design.md#liveness-at-stall): the form says each rule in words as it
 * is typed and refuses a bad one beside the field; a run stopped by
 * `no_progress>=1s` (fail-fast off) says so in the header, the story and the
 * verdict reasons, and shows what the server still answered — on by default
 * in dashboard runs — beside the stall cards.
 */
import { describe, expect } from 'vitest';
import { screenshotPath } from '#test/helpers/browser.ts';
import { test as it } from '#test/helpers/browserFixtures.ts';

describe('stop rules and liveness on the run page', () => {
  it.beforeAll(async ({ dashboard }) => {
    await dashboard.api('/api/health');
  }, 60_000);

  it('the form says the rules in words, refuses a bad one beside the field, and a no_progress run tells its stop', async ({
    page,
    dashboard,
  }) => {
    await page.goto(`${dashboard.url}/#/new`);
    await page.getByTestId('preset-code2wav-hang').check();
    await expect.poll(() => page.locator('#f-livenessAtStall').isChecked()).toBe(true); // on by default
    const field = page.locator('#f-stopOn');
    // Empty, the field shows what to type; its hint says what the rules do.
    await expect.poll(() => field.getAttribute('placeholder')).toContain('no_progress>=60s');
    await expect
      .poll(() => page.locator('[data-field="stopOn"] .hint').textContent())
      .toMatch(/^stop the run, failing closed/);
    await field.fill('errors>=3\nno_progress>=60');
    await expect
      .poll(() => page.locator('[data-field="stopOn"] .hint').textContent())
      .toBe(
        'errors>=3: stop once 3 requests have failed (any error, timeouts included); ' +
          'no_progress>=60s: stop when requests are in flight and none has received a byte for 60 s',
      );
    await field.fill('p95_ttft_ms>100');
    await expect.poll(() => page.getByTestId('error-stopOn').textContent()).toContain("unknown metric 'p95_ttft_ms'");
    await page.getByTestId('start-run').click();
    await page.getByTestId('form-errors').waitFor();
    expect(page.url()).toContain('#/new');

    // Fail-fast off: only the stalled stage, seen from the client, stops the run.
    await field.fill('no_progress>=1s');
    await page.locator('#f-failFast').uncheck();
    await page.locator('#f-numPrompts').fill('40');
    await page.getByTestId('start-run').click();
    await page.waitForURL(/#\/runs\//);
    await expect
      .poll(() => page.getByTestId('verdict-reasons').getAttribute('data-verdict'), { timeout: 30_000 })
      .toBe('failed_closed');

    const breaker = page.getByTestId('breaker');
    await expect.poll(() => breaker.getAttribute('data-state')).toBe('tripped');
    await expect
      .poll(() => breaker.textContent())
      .toMatch(/^breaker: tripped by the stop rule no_progress>=1s at \d+\.\d s$/);
    await expect
      .poll(() => page.getByTestId('run-story').textContent())
      .toMatch(
        /(^|; )the stop rule no_progress>=1s stopped the run at \d+\.\d\d s: \d+ requests in flight, none received a byte for 1\.\d s \(#[\d–#, ]+\); 40 requests stopped: no progress for 1 s \(\d+ unsent\)\.$/i,
      );
    await expect
      .poll(() => page.getByTestId('verdict-reasons').textContent())
      .toMatch(/the stop rule no_progress>=1s stopped the run at \d+\.\d\d s/);

    // What the server still answered: health and text, while the run's audio requests did not move.
    const card = page.getByTestId('liveness');
    await card.waitFor();
    for (const name of ['health', 'models', 'text'])
      await expect.poll(() => card.getByTestId(`liveness-${name}`).getAttribute('data-outcome')).toBe('answered');
    await expect
      .poll(() => card.getByTestId('liveness-trigger').textContent())
      .toContain('when the stop rule no_progress>=1s tripped');
    await expect
      .poll(() => card.getByTestId('liveness-summary').textContent())
      .toMatch(
        /^The server answers health in \d+ ms, \/v1\/models in \d+ ms and a text-only request in \d+ ms, but none of the run's \d+ requests in flight has received a byte for \d+\.\d s: the server and its text path are alive; the stall is on the audio path \(talker \/ Code2Wav\)\.$/,
      );
    await card.scrollIntoViewIfNeeded();
    await page.screenshot({ path: screenshotPath('stop-rule-liveness'), fullPage: true });
  }, 60_000);
});
