/**
 * The Compare picker in Chromium: old nightlies imported from their result
 * files (each keeps its file's date and metadata) are listed by when they
 * ran, not when they were imported, and the picker finds a run by free text
 * (a build number), by `key=value` metadata, by its id and by dates.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { openPage, screenshotPath, type Browser } from '#test/helpers/browser.ts';
import { startServer, type RunningServer } from '#test/helpers/dashboardProcess.ts';

let server: RunningServer;
let browser: Browser;
let page: Page;
const ids: Record<string, string> = {};

/** A vLLM result file of one nightly, with its --metadata keys as vLLM writes them (top level). */
const nightly = (date: string, build: string, node: string) =>
  JSON.stringify({
    date,
    backend: 'openai-chat-omni',
    label: `nightly ${date.slice(4, 8)}`,
    model_id: 'openbmb/MiniCPM-o-4_5',
    num_prompts: 4,
    completed: 4,
    failed: 0,
    duration: 3,
    ci_build: build,
    ci_node: node,
    ci_pipeline: 'vllm-omni',
    ci_step: 'minicpmo-accuracy',
  });

async function importFile(text: string, name: string): Promise<string> {
  const r = await fetch(`${server.url}/api/import`, {
    method: 'POST',
    headers: { 'content-type': 'text/plain', 'x-filename': name },
    body: text,
  });
  expect(r.status).toBe(201);
  return ((await r.json()) as { runs: { id: string }[] }).runs[0].id;
}

const results = () => page.getByTestId('compare-result');
const shownIds = () => results().evaluateAll((els) => els.map((e) => e.getAttribute('data-run-id')));

describe('the Compare picker (Chromium)', () => {
  beforeAll(async () => {
    ({ browser, page } = await openPage());
    server = await startServer();
    // Imported out of order: the list must follow the files' dates, not the imports.
    ids.apr = await importFile(nightly('20260402-120000', '14600', 'node-x'), 'apr.json');
    ids.mar5 = await importFile(nightly('20260305-120000', '14400', 'node-x'), 'mar5.json');
    ids.mar20 = await importFile(nightly('20260320-120000', '14500', 'node-y'), 'mar20.json');
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  it('the runs list is in the order the runs happened (the files’ dates), newest first', async () => {
    await page.goto(`${server.url}/#/`);
    const rows = page.locator('[data-testid="runs-page"] tbody tr');
    await expect.poll(() => rows.count()).toBe(3);
    await expect
      .poll(() => rows.allTextContents())
      .toEqual([
        expect.stringContaining('nightly 0402'),
        expect.stringContaining('nightly 0320'),
        expect.stringContaining('nightly 0305'),
      ]);
  });

  it('finds runs by build number, by key=value metadata, by id and by dates', async () => {
    await page.goto(`${server.url}/#/compare?ids=${ids.apr}`);
    await page.getByTestId('compare-page').waitFor();
    // Collapsed until asked for: no list above the comparison.
    await expect.poll(() => page.getByTestId('compare-picker').count()).toBe(0);
    await page.getByTestId('compare-add-open').click();
    // Unfiltered: the others, newest first; the compared run is not offered again.
    await expect.poll(shownIds).toEqual([ids.mar20, ids.mar5]);
    const search = page.getByTestId('compare-search');
    await search.fill('14400');
    await expect.poll(shownIds).toEqual([ids.mar5]);
    // Its date as every page writes it (shared/format.ts), with its zone.
    await expect
      .poll(() => results().first().textContent())
      .toMatch(/^nightly 0305 · passed · 2026-03-05 \d\d:\d\d:\d\d \S+ · build 14400 on node-x$/);
    await search.fill('ci_node=node-y');
    await expect.poll(shownIds).toEqual([ids.mar20]);
    await search.fill(ids.mar5);
    await expect.poll(shownIds).toEqual([ids.mar5]);
    await search.fill('');
    await page.getByTestId('compare-since').fill('2026-03-10');
    await page.getByTestId('compare-until').fill('2026-04-01');
    await expect.poll(shownIds).toEqual([ids.mar20]);
    await page.screenshot({ path: screenshotPath('compare-picker'), fullPage: true });
    await results().first().click();
    await expect.poll(() => decodeURIComponent(new URL(page.url()).hash)).toBe(`#/compare?ids=${ids.apr},${ids.mar20}`);
    await expect
      .poll(() => page.locator('table.compare-summary th a').allTextContents())
      .toEqual(['build 14600 · node-x · minicpmo-accuracy', 'build 14500 · node-y · minicpmo-accuracy']);
    // Titled by where they ran, the ids beside the titles as written (not upper-cased in the timelines either).
    await expect
      .poll(() => page.locator('table.compare-summary th .run-id').allTextContents())
      .toEqual([ids.apr, ids.mar20]);
    expect(
      await page
        .locator('.compare-lanes-grid h3')
        .evaluateAll((hs) => hs.map((h) => getComputedStyle(h).textTransform)),
    ).toEqual(['none', 'none']);
  });
});
