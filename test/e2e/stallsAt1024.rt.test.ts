/**
 * The Stalls page at 1024×768, light and dark, in Chromium, on the board story (test/helpers/boardStory.ts) with
 * 40-hex commits and long hyphenated node names: nothing on it scrolls or is cut sideways, a commit is a 12-hex
 * prefix with the full one in its title, a node name stays on one line, the strip has a legend and right-aligned
 * tabular percentages, and text on chips (the strip's cells, the phase pill) reads at WCAG AA (4.5:1) against what
 * is drawn behind it — the failed cell included.
 */
import { join } from 'node:path';
import { describe, expect } from 'vitest';
import type { Page } from 'playwright-core';
import { recordStory } from '#test/helpers/boardStory.ts';
import { ensureWebBuild, launchBrowser, requireChromium, ROOT, screenshotPath } from '#test/helpers/browser.ts';
import { test as it } from '#test/helpers/fixtures.ts';
import { sidewaysOverflow, textContrast, wrappedText } from '#test/helpers/layoutChecks.ts';

/** A 40-hex commit per build: the builds differ in their last digits only, as real commits never do. */
const commitOf = (build: string) => `3f9c2a7d41b08e6f5a2c9d1e7b4f60a8c3d${build}`.slice(-40).padStart(40, 'a');
const nodeOf = (node: string) => `${node}-gpu-partition-07-rack-b`;

/** Text that a colour says something on: the strip's cells, its legend, the phase pill. */
const CHIPS = '.strip-cell, .strip-legend .strip-cell, .stall-board .pill';
/** Where node names are printed. */
const NODES = '.stall-board [data-testid="node-name"], .node-rates th, table.strip th';

/** The lowest WCAG contrast between the border of `selector`'s elements and the panel they sit on (solid colours). */
function outlineContrast(page: Page, selector: string): Promise<number> {
  return page.evaluate((sel) => {
    const lum = (css: string) => {
      const [r, g, b] = (css.match(/[\d.]+/g) ?? []).slice(0, 3).map((v) => {
        const s = Number(v) / 255;
        return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
      });
      return 0.2126 * r + 0.7152 * g + 0.0722 * b;
    };
    const panel = lum(getComputedStyle(document.querySelector('.table-wrap')!).backgroundColor);
    const ratios = Array.from(document.querySelectorAll(sel)).map((el) => {
      const [a, b] = [lum(getComputedStyle(el).borderTopColor), panel].sort((x, y) => y - x);
      return Math.round(((a + 0.05) / (b + 0.05)) * 100) / 100;
    });
    return ratios.length ? Math.min(...ratios) : 0;
  }, selector);
}

describe('the Stalls page at 1024×768 (Chromium)', () => {
  for (const scheme of ['light', 'dark'] as const)
    it(`fits, keeps node names whole and chips legible (${scheme})`, { timeout: 120_000 }, async ({ serveApp }) => {
      requireChromium();
      ensureWebBuild();
      const browser = await launchBrowser({ width: 1024, height: 768, colorScheme: scheme });
      try {
        const page = await browser.context.newPage();
        page.setDefaultTimeout(10_000);
        const { app, url } = await serveApp({ webRoot: join(ROOT, 'dist', 'web') });
        await recordStory(app, (m) => ({ ...m, ci_commit: commitOf(m.ci_build), ci_node: nodeOf(m.ci_node) }));
        await page.goto(`${url}/#/stalls`);
        const group = page.getByTestId('stall-board').getByTestId('stall-group').first();
        await expect.poll(() => group.getByTestId('occurrence').count()).toBe(5);

        await expect.poll(() => sidewaysOverflow(page, '.table-wrap, table, main, td, code')).toEqual([]);
        await expect.poll(() => wrappedText(page, NODES)).toEqual([]);
        await expect.poll(() => page.locator(NODES).count()).toBeGreaterThan(0);

        // A commit is its prefix, the full one in its title, in the row, the onset and the occurrences.
        const commit = group.getByTestId('commit').first();
        await expect.poll(() => commit.textContent()).toBe(commitOf('14528').slice(0, 12));
        await expect.poll(() => commit.getAttribute('title')).toBe(commitOf('14528'));
        await expect
          .poll(() => group.getByTestId('onset').textContent())
          .toContain(`(${commitOf('14528').slice(0, 12)})`);
        await expect.poll(() => group.getByTestId('onset').locator('[title]').count()).toBe(2);

        // The strip's legend names every outcome it draws; its percentages are right-aligned tabular numbers.
        const legend = group.getByTestId('strip-legend').first();
        await expect
          .poll(() => legend.locator('.strip-cell').allTextContents())
          .toEqual(['passed', 'failed', 'stalled (another)', 'stalled (this)']);
        const rate = group.getByTestId('hang-rate').first();
        await expect
          .poll(() =>
            rate.evaluate((el) => {
              const s = getComputedStyle(el);
              return `${s.textAlign} ${s.fontVariantNumeric}`;
            }),
          )
          .toBe('right tabular-nums');

        // Every chip, the failed one most of all, reads at 4.5:1 at least.
        await expect.poll(async () => (await textContrast(page, CHIPS)).filter((c) => c.ratio < 4.5)).toEqual([]);
        // The failed cell is seen, not guessed: its outline against the panel at 3:1 (WCAG's non-text contrast).
        await expect.poll(() => outlineContrast(page, '.strip-failed')).toBeGreaterThanOrEqual(3);
        await page.screenshot({ path: screenshotPath(`stalls-1024-${scheme}`), fullPage: true });
      } finally {
        await browser.close();
      }
    });
});
