/**
 * The board's scopes in Chromium, on the story of test/helpers/boardStory.ts
 * (a dashboard serving the built web UI, the runs recorded through its hub):
 * the CI job's group says 5 of 8 with its rate, onset and linked builds, the
 * local runs are a group apart; a filter that matches no run hints at the
 * real ci_* keys; a stall card's "where else it occurred" opens that run's
 * group; "Copy bug report" puts report.md on the clipboard.
 */
import { join } from 'node:path';
import { describe, expect } from 'vitest';
import { BUILD_URL, recordStory } from '#test/helpers/boardStory.ts';
import { openPage, ROOT, screenshotPath } from '#test/helpers/browser.ts';
import { test as it } from '#test/helpers/fixtures.ts';

/** shared/format.ts `dateTime`: "2026-12-01 21:14:53 UTC". */
const DATE_TIME = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} \S+$/;

describe('the Stalls page counts what its sentence counts', () => {
  it(
    'job and local groups apart, rates, onset, links; where else; Copy bug report',
    { timeout: 180_000 },
    async ({ serveApp }) => {
      const { browser, page } = await openPage();
      try {
        const { app, url } = await serveApp({ webRoot: join(ROOT, 'dist', 'web') });
        await recordStory(app);
        await browser.context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: url });
        await page.goto(`${url}/#/stalls`);
        const jobs = page.getByTestId('stall-board').getByTestId('stall-group');
        await expect.poll(() => jobs.count()).toBe(2);
        const hift = jobs.first();
        await expect.poll(() => hift.getByTestId('stall-scope').textContent()).toBe('vllm-omni / minicpmo-accuracy');
        await expect.poll(() => hift.getByTestId('occurrences').textContent()).toBe('5');
        // First and last seen in the one date format every page writes (shared/format.ts), with its zone.
        await expect
          .poll(() => hift.getByTestId('seen').locator('.stack-item').allTextContents())
          .toEqual([expect.stringMatching(DATE_TIME), expect.stringMatching(DATE_TIME)]);
        await expect.poll(() => hift.getByTestId('group-rate').textContent()).toBe('63 % (31–86 %)');
        await expect
          .poll(() => hift.getByTestId('onset').textContent())
          .toMatch(/last passing build 14500 .*→ first stalled build 14528/);
        await expect.poll(() => hift.getByTestId('build-link').first().getAttribute('href')).toBe(BUILD_URL('14528'));
        await expect
          .poll(() => hift.getByTestId('pattern-sentence').textContent())
          .toContain('seen in 5 of the last 8 runs');
        const local = page.getByTestId('local-board').getByTestId('stall-group');
        await expect.poll(() => local.count()).toBe(1);
        await expect.poll(() => local.getByTestId('occurrences').textContent()).toBe('2');
        await expect.poll(() => local.getByTestId('stall-scope').textContent()).toBe('runs without CI metadata');
        await page.screenshot({ path: screenshotPath('stalls-scopes'), fullPage: true });

        // A filter that matches no run says which keys CI runs carry.
        await page.goto(`${url}/#/stalls?meta=${encodeURIComponent('build=14607')}`);
        await expect.poll(() => page.getByTestId('no-run-hint').textContent()).toContain('ci_pipeline');

        // The run page: "where else it occurred" opens this run's group; Copy bug report copies report.md.
        await page.goto(`${url}/#/runs/bench-14607`);
        const where = page.getByTestId('where-else').first();
        await where.waitFor();
        await page.getByTestId('copy-bug-report').click();
        await expect.poll(() => page.getByTestId('copy-bug-report').textContent()).toBe('Copied bug report');
        const copied = await page.evaluate(() => navigator.clipboard.readText());
        expect(copied).toBe(
          (await app.inject({ url: '/api/runs/bench-14607/report.md', headers: { host: new URL(url).host } })).body,
        );
        expect(copied).toContain(`[build 14607](<${BUILD_URL('14607')}>)`);
        await where.click();
        await page.getByTestId('stalls-page').waitFor();
        await expect.poll(() => page.getByTestId('stall-group').count()).toBe(1);
        await expect.poll(() => page.getByTestId('stall-group').getAttribute('data-step')).toBe('minicpmo-accuracy');
        await expect
          .poll(() => page.getByTestId('fingerprint-filter').textContent())
          .toMatch(/^Fingerprint [0-9a-f]{12} only/);
      } finally {
        await browser.close();
      }
    },
  );
});
