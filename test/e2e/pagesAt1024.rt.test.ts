/**
 * The Runs list, a run page and Compare of CI nightlies at 1024×768, light and dark, in Chromium:
 * nothing scrolls or is cut sideways, a 40-hex commit is a prefix with the full one in its title, a node name stays
 * on one line, text on chips and counters has WCAG AA contrast (4.5:1) against what is drawn behind it; runs are
 * titled by where they ran with the id beside, the build a link only when its URL is http(s); "completed 0" is not
 * green; a run stopped by errors>=3 says so on the Runs list and Compare, not "cancelled after timeout".
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { launchBrowser, ensureWebBuild, requireChromium, type Browser } from '#test/helpers/browser.ts';
import { startServer, type RunningServer } from '#test/helpers/dashboardProcess.ts';
import { sidewaysOverflow, textContrast, wrappedText } from '#test/helpers/layoutChecks.ts';

const COMMIT = '3f9c2a7d41b08e6f5a2c9d1e7b4f60a8c3d2e1f0';
const NODE = 'mi325-agent-2-gpu-partition-07-rack-b';

let server: RunningServer;
const browsers: Browser[] = [];
const ids: Record<string, string> = {};

/** A vLLM result file of one nightly; `extra` adds or overrides keys. */
const nightly = (date: string, build: string, extra: Record<string, unknown> = {}) =>
  JSON.stringify({
    date,
    backend: 'openai-chat-omni',
    model_id: 'openbmb/MiniCPM-o-4_5',
    num_prompts: 20,
    completed: 20,
    failed: 0,
    duration: 3,
    ci_build: build,
    ci_build_url: `https://buildkite.com/vllm/ci/builds/${build}`,
    ci_node: NODE,
    ci_commit: COMMIT,
    ci_pipeline: 'vllm-omni',
    ci_step: 'minicpmo-accuracy',
    ...extra,
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

async function pageIn(scheme: 'light' | 'dark'): Promise<Page> {
  const b = await launchBrowser({ width: 1024, height: 768, colorScheme: scheme });
  browsers.push(b);
  const page = await b.context.newPage();
  page.setDefaultTimeout(10_000);
  return page;
}

/** Chips and counters: every text a colour says something on. */
const CHIPS = '.badge, .pill, .counter dt, .counter dd, .counter-parts li, .counts-cell span, td.c-completed';

async function checkLayout(page: Page, where: string): Promise<void> {
  expect(await sidewaysOverflow(page), `${where}: sideways overflow`).toEqual([]);
  const low = (await textContrast(page, CHIPS)).filter((c) => c.ratio < 4.5);
  expect(low, `${where}: text under 4.5:1`).toEqual([]);
  expect(await wrappedText(page, '[data-testid="where-node"]'), `${where}: node names on one line`).toEqual([]);
}

describe('pages at 1024×768, light and dark (Chromium)', () => {
  beforeAll(async () => {
    requireChromium();
    ensureWebBuild();
    server = await startServer();
    ids.pass = await importFile(nightly('20261205-021453', '14607'), 'pass.json');
    ids.stopped = await importFile(
      nightly('20261206-021453', '14608', {
        completed: 0,
        failed: 20,
        errored_requests: 3,
        cancelled_after_timeout_requests: 12,
        not_dispatched_requests: 5,
        fail_fast_tripped: true,
        stopped_by: { kind: 'errors', rule: 'errors>=3', at_s: 1.2, value: 3, requests: [], omitted: 0 },
        ci_build_url: 'javascript:alert(1)',
      }),
      'stopped.json',
    );
  }, 60_000);

  afterAll(async () => {
    for (const b of browsers) await b.close();
    await server?.stop();
  });

  for (const scheme of ['light', 'dark'] as const) {
    it(`${scheme}: the Runs list, a run page and Compare fit, and their chips read`, async () => {
      const page = await pageIn(scheme);
      await page.goto(`${server.url}/#/`);
      const rows = page.getByTestId('run-row');
      await expect.poll(() => rows.count()).toBe(2);
      await checkLayout(page, `${scheme} runs`);

      // Titled by where it ran, the id beside once; node, commit and step shown; the build a link only if http(s).
      const stopped = page.locator(`[data-run-id="${ids.stopped}"]`);
      await expect
        .poll(() => stopped.locator('.run-link').textContent())
        .toBe(`build 14608 · ${NODE} · minicpmo-accuracy`);
      await expect.poll(() => stopped.getByTestId('run-row-id').textContent()).toBe(ids.stopped);
      expect((await stopped.textContent())!.split(ids.stopped)).toHaveLength(2);
      await expect.poll(() => stopped.getByTestId('where-commit').textContent()).toBe(COMMIT.slice(0, 12));
      await expect.poll(() => stopped.getByTestId('where-commit').getAttribute('title')).toBe(COMMIT);
      await expect.poll(() => stopped.getByTestId('where-step').textContent()).toBe('minicpmo-accuracy');
      await expect.poll(() => stopped.getByTestId('ci-build-link').count()).toBe(0);
      const passLink = page.locator(`[data-run-id="${ids.pass}"]`).getByTestId('ci-build-link');
      await expect.poll(() => passLink.getAttribute('href')).toBe('https://buildkite.com/vllm/ci/builds/14607');
      // The stop named by its rule; "completed 0" not green.
      await expect.poll(() => stopped.getByTestId('run-row-parts').textContent()).toContain('12 stopped by errors>=3');
      await expect
        .poll(() => stopped.getByTestId('run-row-parts').textContent())
        .not.toContain('cancelled after timeout');
      const zero = stopped.locator('.c-completed');
      await expect
        .poll(() => zero.evaluate((el) => getComputedStyle(el).color))
        .toBe(
          await page.evaluate(() => {
            const p = document.createElement('span');
            p.className = 'muted';
            document.body.append(p);
            const c = getComputedStyle(p).color;
            p.remove();
            return c;
          }),
        );

      await page.goto(`${server.url}/#/runs/${ids.stopped}`);
      await expect.poll(() => page.getByTestId('run-page').getAttribute('data-loaded')).toBe('true');
      await page.getByTestId('count-cancelled_after_timeout').waitFor();
      await expect
        .poll(() => page.getByTestId('count-cancelled_after_timeout').textContent())
        .toBe('12 stopped by errors>=3');
      // The metrics table's row too: vLLM's key kept, its label the rule.
      const cancelledRow = page.getByTestId('metric-cancelled_after_timeout_requests');
      await expect.poll(() => cancelledRow.locator('th').textContent()).toBe('Stopped by errors>=3');
      await expect.poll(() => cancelledRow.locator('td').textContent()).toBe('12');
      await expect.poll(() => page.getByTestId('run-id').textContent()).toBe(ids.stopped);
      await checkLayout(page, `${scheme} run page`);

      await page.goto(`${server.url}/#/compare?ids=${ids.pass},${ids.stopped}`);
      await page.getByTestId('compare-page').waitFor();
      await expect.poll(() => page.getByTestId('compare-stop-part').count()).toBe(1);
      await expect.poll(() => page.getByTestId('compare-stop-part').textContent()).toBe('12 stopped by errors>=3');
      await expect
        .poll(() => page.getByTestId('metric-cancelled_after_timeout_requests').locator('th').textContent())
        .toBe('Stopped by errors>=3');
      // The picker is one button until asked for.
      await expect.poll(() => page.getByTestId('compare-picker').count()).toBe(0);
      await expect.poll(() => page.getByTestId('compare-add-open').count()).toBe(1);
      await checkLayout(page, `${scheme} compare`);
    }, 60_000);
  }
});
