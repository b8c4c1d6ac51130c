/**
 * The dashboard in a real browser: the real server (its embedded repro server
 * included) on a free port, Debian's Chromium via playwright-core. One
 * server and one browser for the whole file; the scenarios build on each
 * other the way a maintainer would use the dashboard.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect } from 'vitest';
import type { Page } from 'playwright-core';
import { screenshotPath } from '#test/helpers/browser.ts';
import { test as it } from '#test/helpers/browserFixtures.ts';

const FIXTURE = new URL('../fixtures/vllm-results/omni-chat-compact-randommm.json', import.meta.url);

let hangRunId = '';
let passRunId = '';

/** A full-page screenshot from the top (a focused field may have scrolled the page under the sticky bar). */
async function shot(page: Page, name: string): Promise<void> {
  await page.evaluate('window.scrollTo(0, 0)');
  await page.screenshot({ path: screenshotPath(name), fullPage: true });
}

describe('dashboard in Chromium', () => {
  // The dashboard (and the web build it serves) starts within this hook's minute, not a test's 20 s.
  it.beforeAll(async ({ dashboard }) => {
    await dashboard.api('/api/health');
  }, 60_000);

  it("serves a production build of the UI (vitest's NODE_ENV=test must not reach vite build)", ({ webBuild }) => {
    const dir = join(webBuild, 'assets');
    const devJsx = readdirSync(dir).filter(
      (f) => f.endsWith('.js') && readFileSync(join(dir, f), 'utf8').includes('jsxDEV'),
    );
    expect(devJsx, 'React development runtime bundled').toEqual([]);
  });

  it('refuses a bad form value beside its field and starts nothing', async ({ page, dashboard }) => {
    await page.goto(`${dashboard.url}/#/new`);
    await page.getByTestId('preset-code2wav-hang').check();
    // A watchdog not well below the request timeout is a warning beside the field (the stack would come too late).
    await page
      .locator('#f-target-watchdogTimeoutS')
      .fill(String(Number(await page.locator('#f-timeouts-totalS').inputValue()) * 0.75));
    await expect
      .poll(() => page.getByTestId('warning-target.watchdogTimeoutS').textContent())
      .toMatch(/not well below/);
    await page.locator('#f-target-watchdogTimeoutS').fill('1');
    await expect.poll(() => page.getByTestId('warning-target.watchdogTimeoutS').count()).toBe(0);
    await page.locator('#f-numPrompts').fill('0');
    await expect
      .poll(() => page.getByTestId('error-numPrompts').textContent())
      .toBe('Requests (num prompts) must be at least 1');
    await page.getByTestId('start-run').click();
    await page.getByTestId('form-errors').waitFor();
    await expect.poll(() => page.evaluate(() => document.activeElement?.id)).toBe('f-numPrompts');
    expect(page.url()).toContain('#/new');
    await shot(page, 'new-run-error');
    // A value only the server can judge (the dataset directory does not exist): its 400 lands beside the field.
    await page.getByTestId('preset-seed-tts-url').check();
    await page.locator('#f-dataset-path').fill('./no-such-seed-tts-dir');
    await page.getByTestId('start-run').click();
    await expect.poll(() => page.getByTestId('error-dataset.path').textContent()).toMatch(/cannot be read|missing/);
    expect(page.url()).toContain('#/new');
    // Ramp-up and goodput: the ramp's fields appear with it; a ramp with an explicit rate is the server's to refuse.
    await page.getByTestId('preset-code2wav-hang').check();
    await expect.poll(() => page.locator('#f-rampUp-startRps').count()).toBe(0);
    await page.locator('#f-rampUp-strategy').selectOption('linear');
    await page.locator('#f-rampUp-endRps').fill('20');
    await page.locator('#f-requestRate').fill('5');
    await page.locator('#f-goodput-e2el').fill('-1');
    await expect.poll(() => page.getByTestId('error-goodput.e2el').count()).toBe(1);
    await page.locator('#f-goodput-e2el').fill('2000');
    await page.getByTestId('start-run').click();
    await expect.poll(() => page.getByTestId('error-requestRate').textContent()).toMatch(/ramp-up/);
    await page.locator('#f-rampUp-strategy').selectOption('none');
    await expect.poll(() => page.locator('#f-rampUp-startRps').count()).toBe(0);
    const list = await dashboard.api<{ total: number }>('/api/runs');
    expect(list.total).toBe(0);
  });

  it('runs the hang preset live: timeline fills, stall with stack and a growing age, breaker trips, fails closed', async ({
    page,
  }) => {
    await page.getByTestId('reset-preset').click();
    await expect.poll(() => page.locator('#f-numPrompts').inputValue()).toBe('1088');
    await shot(page, 'new-run');
    await page.getByTestId('start-run').click();
    await page.waitForURL(/#\/runs\//);
    hangRunId = decodeURIComponent(page.url().split('#/runs/')[1]);
    await expect.poll(() => page.getByTestId('connection').getAttribute('data-state')).toBe('live');

    // The live timeline fills in: every request has a row, and the first ones stream while the run is running.
    await page.locator('[data-testid="timeline-row"][data-status="streaming"] .seg-text').first().waitFor();
    expect(Number(await page.getByTestId('timeline').getAttribute('data-rows'))).toBe(1088);
    await expect.poll(() => page.getByTestId('run-status').getAttribute('data-status')).toBe('running');

    // The watchdog report, with the owner thread's stack, while the run is still going.
    const stall = page.getByTestId('stall-report').first();
    await stall.waitFor();
    await expect.poll(() => stall.getAttribute('data-phase')).toBe('hift');
    await expect.poll(() => stall.locator('[data-testid="stack-frames"] li').count()).toBeGreaterThan(0);
    const age = () => stall.getByTestId('stall-age').getAttribute('data-age-s').then(Number);
    const a1 = await age();
    await expect.poll(() => page.getByTestId('run-status').getAttribute('data-status')).toBe('running');
    // Read again until it has grown (a loaded machine may delay the page's next tick a little).
    await expect.poll(age, { timeout: 4000, interval: 300 }).toBeGreaterThan(a1);
    await shot(page, 'run-live');

    await expect
      .poll(() => page.getByTestId('breaker').getAttribute('data-state'), { timeout: 30_000 })
      .toBe('tripped');
    await expect
      .poll(() => page.getByTestId('run-page').getByTestId('verdict-badge').getAttribute('data-verdict'), {
        timeout: 30_000,
      })
      .toBe('failed_closed');
    await page.locator('[data-testid="timeline-row"][data-status="timed_out"] .mark-timeout').first().waitFor();
    await page.locator('[data-testid="timeline-row"][data-status="not_dispatched"]').first().waitFor();
    expect(
      Number((await page.getByTestId('count-not_dispatched').locator('b').textContent())!.replace(/,/g, '')),
    ).toBeGreaterThan(1000);
    await shot(page, 'run-failed-closed');
  }, 45_000);

  it('finds the run after a reload and replays the same view', async ({ page, dashboard }) => {
    await page.goto(`${dashboard.url}/#/`);
    await page.reload();
    const row = page.locator(`[data-testid="run-row"][data-run-id="${hangRunId}"]`);
    await row.waitFor();
    await expect.poll(() => row.getByTestId('verdict-badge').getAttribute('data-verdict')).toBe('failed_closed');
    await shot(page, 'runs');

    await row.locator('a.run-link').click();
    await page.getByTestId('run-page').waitFor();
    await expect
      .poll(() => page.getByTestId('run-page').getByTestId('verdict-badge').getAttribute('data-verdict'))
      .toBe('failed_closed');
    await expect.poll(() => page.getByTestId('breaker').getAttribute('data-state')).toBe('tripped');
    const stall = page.getByTestId('stall-report').first();
    await stall.waitFor();
    await expect.poll(() => stall.locator('[data-testid="stack-frames"] li').count()).toBeGreaterThan(0);
    await page.locator('[data-testid="timeline-row"][data-status="timed_out"]').first().waitFor();
    // The replayed stall age is frozen at the run's end: two reads agree.
    const a1 = await stall.getByTestId('stall-age').getAttribute('data-age-s');
    await page.waitForTimeout(300);
    await expect.poll(() => stall.getByTestId('stall-age').getAttribute('data-age-s')).toBe(a1);
    // Clicking an affected request opens its detail with its Code2Wav ops.
    await stall.getByTestId('stall-request').first().click();
    await page.getByTestId('request-detail').waitFor();
    await shot(page, 'run-replay');
    // Keyboard: the timeline takes focus, Home selects the first request and shows its detail.
    await page.getByTestId('timeline').focus();
    await page.keyboard.press('Home');
    await expect.poll(() => page.getByTestId('request-detail').locator('h2').textContent()).toContain('Request #0');
    await page.keyboard.press('+');
    await page.getByRole('button', { name: 'Fit' }).waitFor();
    await page.emulateMedia({ colorScheme: 'dark' });
    await page.screenshot({ path: screenshotPath('run-replay-dark'), fullPage: false });
    await page.emulateMedia({ colorScheme: 'light' });
    await page.setViewportSize({ width: 1920, height: 1080 });
    await page.screenshot({ path: screenshotPath('run-replay-wide'), fullPage: false });
    await page.setViewportSize({ width: 1280, height: 800 });
  });

  it('compares the failing run with a passing one', async ({ page, dashboard }) => {
    const presets = await dashboard.api<{ presets: { id: string; spec: Record<string, unknown> }[] }>('/api/presets');
    const hang = presets.presets.find((p) => p.id === 'code2wav-hang')!.spec;
    const clean = {
      ...hang,
      label: 'clean-8',
      numPrompts: 8,
      failFast: false,
      timeouts: { totalS: 60 },
      metadata: { preset: 'clean' },
      target: { ...(hang.target as object), faults: [] },
    };
    ({ id: passRunId } = await dashboard.api<{ id: string }>('/api/runs', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(clean),
    }));
    await expect
      .poll(async () => (await dashboard.api<{ verdict: string | null }>(`/api/runs/${passRunId}`)).verdict, {
        timeout: 20_000,
      })
      .toBe('passed');

    await page.goto(`${dashboard.url}/#/`);
    await page.locator(`[data-testid="run-row"][data-run-id="${passRunId}"] input[type="checkbox"]`).check();
    await page.locator(`[data-testid="run-row"][data-run-id="${hangRunId}"] input[type="checkbox"]`).check();
    await page.getByTestId('compare-selected').click();
    await page.getByTestId('compare-page').waitFor();
    const verdicts = await page
      .getByTestId('compare-page')
      .getByTestId('verdict-badge')
      .evaluateAll((els) => els.map((e) => e.getAttribute('data-verdict')));
    expect(verdicts.sort()).toEqual(['failed_closed', 'passed']);
    const differing = await page.locator('[data-testid="config-diff"] tr.differs th').allTextContents();
    expect(differing).toEqual(expect.arrayContaining(['numPrompts', 'failFast']));
    await page.getByTestId('stall-phase-chart').waitFor();
    await page.getByTestId('metrics-table').waitFor();
    await shot(page, 'compare');
  }, 30_000);

  it('imports a real vLLM-Omni result file and shows its metrics', async ({ page, dashboard }) => {
    await page.goto(`${dashboard.url}/#/`);
    await page.getByTestId('import-file').setInputFiles({
      name: 'omni-chat-compact-randommm.json',
      mimeType: 'application/json',
      buffer: readFileSync(FIXTURE),
    });
    await expect.poll(() => page.getByTestId('notice').textContent()).toMatch(/Imported 1 run/);
    const rows = page.getByTestId('run-row');
    await expect.poll(() => rows.count()).toBe(3);
    const imported = page.locator('[data-testid="run-row"]', { hasText: 'import' }).first();
    await shot(page, 'runs-after-import');
    await imported.locator('a.run-link').click();
    await page.getByTestId('metrics-table').waitFor();
    await expect.poll(() => page.getByTestId('metrics-table').textContent()).toContain('Time to First Packet');
    await expect.poll(() => page.getByTestId('run-page').textContent()).toContain('No per-request data');
    await shot(page, 'run-imported');
  });

  it('filters the runs and deletes one after confirmation', async ({ page, dashboard }) => {
    await page.goto(`${dashboard.url}/#/`);
    await expect.poll(() => page.getByTestId('run-row').count()).toBe(3);
    await page.getByTestId('filter-verdict').selectOption('failed_closed');
    await expect.poll(() => page.getByTestId('run-row').count()).toBe(1);
    await expect.poll(() => page.getByTestId('run-row').getAttribute('data-run-id')).toBe(hangRunId);
    await page.getByTestId('filter-verdict').selectOption('');
    await page.getByTestId('filter-text').fill('clean-8');
    await expect.poll(() => page.getByTestId('run-row').count()).toBe(1);
    await page.getByTestId('filter-text').fill('');
    await expect.poll(() => page.getByTestId('run-row').count()).toBe(3);
    const row = page.locator(`[data-testid="run-row"][data-run-id="${passRunId}"]`);
    await row.getByRole('button', { name: /^Delete / }).click();
    await row.getByTestId('confirm-delete').click();
    await expect.poll(() => page.getByTestId('run-row').count()).toBe(2);
    expect((await dashboard.api<{ total: number }>('/api/runs')).total).toBe(2);
  });

  it('cancels a running run from its page: it ends interrupted', async ({ page, dashboard }) => {
    const presets = await dashboard.api<{ presets: { id: string; spec: Record<string, unknown> }[] }>('/api/presets');
    const hang = presets.presets.find((p) => p.id === 'code2wav-hang')!.spec;
    const long = {
      ...hang,
      label: 'to-cancel',
      failFast: false,
      timeouts: { totalS: 60 },
      target: { ...(hang.target as object), faults: [] },
    };
    const { id } = await dashboard.api<{ id: string }>('/api/runs', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(long),
    });
    await page.goto(`${dashboard.url}/#/runs/${id}`);
    await page.locator('[data-testid="timeline-row"][data-status="streaming"]').first().waitFor({ timeout: 20_000 });
    await page.getByTestId('cancel-run').click();
    await page.getByTestId('confirm-cancel').click();
    await expect
      .poll(() => page.getByTestId('run-page').getByTestId('verdict-badge').getAttribute('data-verdict'), {
        timeout: 20_000,
      })
      .toBe('interrupted');
    await expect.poll(() => page.getByTestId('cancel-run').count()).toBe(0);
  }, 45_000);
});
