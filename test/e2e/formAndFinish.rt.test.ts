/**
 * The form and the finishing touches in a real browser: the New-run form (Custom and presets in the
 * URL, the sticky action bar, labelled messages), finding things (the request
 * deep link and its detail in view, the tooltip after a layout change, the
 * runs list's filters in the URL, JSON-lines runs in file order, the import
 * notice), the run page's exports and data gaps, and the small finish (dark
 * hover band, "Compare 1 run", a missing run, finished charts, human verdicts,
 * round axis steps). One server and one browser for the file; the runs are
 * made through the API first (a clean embedded run, a run whose every request
 * fails against a closed port) and by importing real vLLM result files.
 */
import { readFileSync } from 'node:fs';
import { describe, expect } from 'vitest';
import type { Page } from 'playwright-core';
import { CODE2WAV_HANG } from '#shared/config/presets.ts';
import { screenshotPath } from '#test/helpers/browser.ts';
import { test as it, type Dashboard } from '#test/helpers/browserFixtures.ts';

const fixture = (name: string) => readFileSync(new URL(`../fixtures/vllm-results/${name}`, import.meta.url));
const DETAILED = 'detailed-append-jsonl-itls.json';

let cleanId = '';
let failedId = '';

const importText = (dashboard: Dashboard, text: string, name: string) =>
  dashboard.api<{ runs: { id: string }[] }>('/api/import', {
    method: 'POST',
    headers: { 'content-type': 'text/plain', 'x-filename': name },
    body: text,
  });

async function finished(dashboard: Dashboard, id: string): Promise<string> {
  for (let i = 0; i < 200; i++) {
    const d = await dashboard.api<{ status: string; verdict: string | null }>(`/api/runs/${id}`);
    if (d.status !== 'running' && d.verdict) return d.verdict;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`run ${id} did not finish within 20 s`);
}

/** Whether an element's box lies within the viewport (at least its top 40 px). */
async function inViewport(page: Page, sel: ReturnType<Page['locator']>): Promise<boolean> {
  const box = await sel.boundingBox();
  const vp = page.viewportSize()!;
  return box !== null && box.y >= 0 && box.y + Math.min(40, box.height) <= vp.height;
}

describe('form, navigation and finish in Chromium', () => {
  it.beforeAll(async ({ dashboard }) => {
    const hang = CODE2WAV_HANG.spec;
    ({ id: cleanId } = await dashboard.postJson<{ id: string }>('/api/runs', {
      ...hang,
      label: 'clean-12',
      numPrompts: 12,
      maxConcurrency: 4,
      failFast: false,
      timeouts: { totalS: 60 },
      metadata: {},
      target: { ...hang.target, faults: [], watchdogTimeoutS: 0 },
    }));
    expect(await finished(dashboard, cleanId)).toBe('passed');
    // Nothing listens on port 1: every request fails at once and the run ends `failed` with no completion.
    ({ id: failedId } = await dashboard.postJson<{ id: string }>('/api/runs', {
      ...hang,
      label: 'closed-port',
      numPrompts: 3,
      failFast: false,
      timeouts: { totalS: 5 },
      metadata: {},
      target: { kind: 'url', baseUrl: 'http://127.0.0.1:1' },
    }));
    expect(await finished(dashboard, failedId)).toBe('failed');
  }, 60_000);

  describe('1–2: the form', () => {
    it('opens on Custom (blank label, metadata and faults) and keeps the preset choice in the URL', async ({
      page,
      dashboard,
    }) => {
      await page.goto(`${dashboard.url}/#/new`);
      await page.getByTestId('preset-custom').waitFor();
      await expect.poll(() => page.getByTestId('preset-custom').isChecked()).toBe(true);
      await expect.poll(() => page.locator('#f-label').inputValue()).toBe('');
      await expect.poll(() => page.locator('#f-metadata').inputValue()).toBe('');
      await expect.poll(() => page.locator('.fault').count()).toBe(0);
      await page.getByTestId('preset-code2wav-hang').check();
      await page.waitForURL(/#\/new\?preset=code2wav-hang$/);
      await expect.poll(() => page.locator('#f-label').inputValue()).toBe('code2wav-hang');
      await page.reload();
      await expect.poll(() => page.locator('#f-label').inputValue()).toBe('code2wav-hang');
      await expect.poll(() => page.getByTestId('preset-code2wav-hang').isChecked()).toBe(true);
      await page.goBack();
      await expect.poll(() => page.getByTestId('preset-custom').isChecked()).toBe(true);
      await expect.poll(() => page.locator('#f-label').inputValue()).toBe('');
    });

    it('keeps Start on screen: the action bar sticks to the bottom of a long form', async ({ page, dashboard }) => {
      await page.setViewportSize({ width: 1280, height: 800 });
      await page.goto(`${dashboard.url}/#/new?preset=code2wav-hang`);
      await page.getByTestId('start-run').waitFor();
      await expect.poll(() => page.evaluate(() => document.documentElement.scrollHeight)).toBeGreaterThan(1200);
      expect(await inViewport(page, page.getByTestId('start-run'))).toBe(true);
      await page.evaluate(() => window.scrollTo(0, 600));
      expect(await inViewport(page, page.getByTestId('start-run'))).toBe(true);
      await page.screenshot({ path: screenshotPath('new-run-sticky'), fullPage: false });
    });

    it('changes nothing when the target already chosen is chosen again', async ({ page, dashboard }) => {
      await page.goto(`${dashboard.url}/#/new?preset=code2wav-hang`);
      await page.locator('#f-target-watchdogTimeoutS').fill('2');
      await page.locator('#f-target-seed').fill('7');
      await page.locator('#f-target-kind').selectOption('embedded');
      await page.locator('#f-dataset-name').selectOption('random');
      await expect.poll(() => page.locator('#f-target-watchdogTimeoutS').inputValue()).toBe('2');
      await expect.poll(() => page.locator('#f-target-seed').inputValue()).toBe('7');
      await expect.poll(() => page.locator('.fault').count()).toBe(1);
      await expect.poll(() => page.locator('#f-dataset-inputLen').inputValue()).toBe('32');
    });

    it('says what is wrong in words, with the field label, and accepts a request rate of inf', async ({
      page,
      dashboard,
    }) => {
      await page.goto(`${dashboard.url}/#/new?preset=code2wav-hang`);
      const err = (path: string) => page.getByTestId(`error-${path}`);
      await page.locator('#f-numPrompts').fill('0');
      await expect.poll(() => err('numPrompts').textContent()).toBe('Requests (num prompts) must be at least 1');
      await page.locator('#f-model').fill('');
      await expect.poll(() => err('model').textContent()).toBe('Model must not be empty');
      await page.locator('#f-maxConcurrency').fill('0');
      await expect.poll(() => err('maxConcurrency').textContent()).toMatch(/^Max concurrency must be a whole number/);
      await page.locator('#f-extraBody').fill('{"modalities": ');
      await expect
        .poll(() => err('extraBody').textContent())
        .toMatch(/^Extra body \(JSON, merged at the top level\) must be a JSON object/);
      await page.locator('#f-requestRate').fill('fast');
      await expect
        .poll(() => err('requestRate').textContent())
        .toBe('Request rate (req/s) must be a number above 0, or inf');
      await page.locator('#f-requestRate').fill('inf');
      await expect.poll(() => err('requestRate').count()).toBe(0);
      const text = await page.getByTestId('new-run-form').textContent();
      expect(text).not.toMatch(/>=|fewer than|must be (object|number)\b/);
      // The summary names fields by their labels too.
      await page.getByTestId('start-run').click();
      const summary = page.getByTestId('form-errors');
      await summary.waitFor();
      await expect.poll(() => summary.locator('li a').allTextContents()).toContain('Requests (num prompts)');
      await expect.poll(() => summary.locator('li a').allTextContents()).not.toContain('numPrompts');
    });

    it('keeps the watchdog warning while another field is in error', async ({ page, dashboard }) => {
      await page.goto(`${dashboard.url}/#/new?preset=code2wav-hang`);
      await page.locator('#f-numPrompts').fill('0');
      await page.getByTestId('error-numPrompts').waitFor();
      await page.locator('#f-target-watchdogTimeoutS').fill('6');
      await expect.poll(() => page.getByTestId('warning-target.watchdogTimeoutS').count()).toBe(1);
      await expect
        .poll(() => page.getByTestId('warning-target.watchdogTimeoutS').textContent())
        .toMatch(/not well below the request timeout 8s/);
      await expect.poll(() => page.getByTestId('error-numPrompts').count()).toBe(1);
    });
  });

  describe('3: requests', () => {
    it('opens #/runs/ID?req=5 with "Request #5" in view, also at 1024 px, and ?request= as an alias', async ({
      page,
      dashboard,
    }) => {
      await page.setViewportSize({ width: 1024, height: 768 });
      await page.goto(`${dashboard.url}/#/runs/${cleanId}?req=5`);
      const detail = page.getByTestId('request-detail');
      await detail.waitFor();
      await expect.poll(() => detail.locator('h2').textContent()).toMatch(/^Request #5\b/);
      await expect.poll(() => inViewport(page, detail)).toBe(true);
      await expect.poll(() => detail.getByTestId('request-link').getAttribute('href')).toBe(`#/runs/${cleanId}?req=5`);
      await page.screenshot({ path: screenshotPath('request-deep-link-1024'), fullPage: false });

      await page.goto(`${dashboard.url}/#/runs/${cleanId}?request=3`);
      await page.reload();
      await expect.poll(() => detail.locator('h2').textContent()).toMatch(/^Request #3\b/);
    });

    it('brings a clicked request into view and puts it in the URL', async ({ page, dashboard }) => {
      await page.setViewportSize({ width: 1024, height: 768 });
      await page.goto(`${dashboard.url}/#/runs/${cleanId}`);
      await page.getByTestId('timeline-row').first().waitFor();
      await page.getByTestId('timeline').scrollIntoViewIfNeeded();
      await page.locator('[data-testid="timeline-row"]').nth(2).click();
      const detail = page.getByTestId('request-detail');
      await detail.waitFor();
      await expect.poll(() => detail.locator('h2').textContent()).toMatch(/^Request #2\b/);
      await expect.poll(() => inViewport(page, detail)).toBe(true);
      expect(page.url()).toMatch(new RegExp(`#/runs/${cleanId}\\?req=2$`));
    });

    it('drops the hover tooltip when the layout moves the rows under it', async ({ page, dashboard }) => {
      await page.setViewportSize({ width: 1280, height: 800 });
      await page.goto(`${dashboard.url}/#/runs/${cleanId}`);
      await page.reload(); // no request selected: the click below opens the detail
      const row = page.locator('[data-testid="timeline-row"]').nth(1);
      await row.waitFor();
      await expect.poll(() => page.getByTestId('request-detail').count()).toBe(0);
      await row.scrollIntoViewIfNeeded();
      // Let the scroll's own event pass first (it drops any tooltip, rightly).
      await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
      const box = (await row.boundingBox())!;
      await page.mouse.move(box.x + box.width * 0.6, box.y + box.height / 2);
      await page.locator('.tl-tip').waitFor();
      // The click opens the detail beside the timeline: the timeline narrows, the rows move, the pointer does not.
      await page.mouse.down();
      await page.mouse.up();
      await page.getByTestId('request-detail').waitFor();
      await expect.poll(() => page.locator('.tl-tip').count()).toBe(0);
    });
  });

  describe('4: the runs list', () => {
    it('imports a JSON-lines file: one notice of what is missing, the runs by their dates in the file, below today’s', async ({
      page,
      dashboard,
    }) => {
      await page.goto(`${dashboard.url}/#/`);
      await page
        .getByTestId('import-file')
        .setInputFiles({ name: DETAILED, mimeType: 'application/json', buffer: fixture(DETAILED) });
      await expect.poll(() => page.getByTestId('notice').textContent()).toMatch(/^Imported 16 runs/);
      const notice = (await page.getByTestId('notice').textContent())!;
      expect(notice.match(/without/gi)).toHaveLength(1);
      await expect.poll(() => page.getByTestId('run-row').count()).toBe(18);
      const labels = await page.locator('[data-testid="run-row"] a.run-link').allTextContents();
      // The file's runs of August 2025, newest (the last appended) first, after today's two runs.
      expect(labels.slice(2)).toEqual(Array.from({ length: 16 }, (_, i) => `${DETAILED} #${16 - i}`));
    });

    it('keeps the filters in the URL: a shared link shows the same view, Back returns to the last one', async ({
      page,
      dashboard,
    }) => {
      await page.goto(`${dashboard.url}/#/`);
      await expect.poll(() => page.getByTestId('run-row').count()).toBe(18);
      await page.getByTestId('filter-verdict').selectOption('passed');
      await page.waitForURL(/verdict=passed/);
      await page.getByTestId('filter-text').fill('clean');
      await page.waitForURL(/q=clean/);
      await expect.poll(() => page.getByTestId('run-row').count()).toBe(1);
      const shared = page.url();
      await page.goBack();
      await expect.poll(() => page.getByTestId('filter-text').inputValue()).toBe('');
      expect(page.url()).toMatch(/verdict=passed/);
      await page.goBack();
      await expect.poll(() => page.getByTestId('filter-verdict').inputValue()).toBe('');
      await expect.poll(() => page.getByTestId('run-row').count()).toBe(18);

      const other = await page.context().newPage();
      try {
        await other.goto(shared);
        await expect.poll(() => other.getByTestId('run-row').count()).toBe(1);
        await expect.poll(() => other.getByTestId('filter-verdict').inputValue()).toBe('passed');
        await expect.poll(() => other.getByTestId('filter-text').inputValue()).toBe('clean');
      } finally {
        await other.close();
      }
    });

    // Caught: each field's pause committed with the URL as it was when that field was typed in, so the
    // second field to commit put the first one's old value back.
    it('two filters typed within one pause both reach the URL, and stay there', async ({ page, dashboard }) => {
      await page.goto(`${dashboard.url}/#/`);
      await expect.poll(() => page.getByTestId('run-row').count()).toBeGreaterThan(0);
      await page.getByTestId('filter-text').fill('clean');
      await page.getByTestId('filter-meta').fill(' node=mi300-7 ');
      await page.waitForURL(/q=clean.*meta=node%3Dmi300-7|meta=node%3Dmi300-7.*q=clean/);
      await page.waitForTimeout(600); // past both pauses: nothing commits again
      expect(page.url()).toMatch(/q=clean/);
      expect(page.url()).toMatch(/meta=node%3Dmi300-7(&|$)/);
      await expect.poll(() => page.getByTestId('filter-meta').inputValue()).toBe('node=mi300-7'); // the URL's value, trimmed
    });
  });

  describe('5: the run page', () => {
    it('disables the exports an import without per-request data cannot fill, and says why, near the top', async ({
      page,
      dashboard,
    }) => {
      await page.setViewportSize({ width: 1280, height: 800 });
      const { runs } = await importText(
        dashboard,
        fixture('omni-chat-compact-randommm.json').toString('utf8'),
        'omni-chat-compact-randommm.json',
      );
      await page.goto(`${dashboard.url}/#/runs/${runs[0].id}`);
      await page.getByTestId('metrics-table').waitFor();
      const exp = (f: string) => page.getByTestId(`export-${f}`);
      await expect.poll(() => exp('trace').getAttribute('data-disabled')).toBe('true');
      await expect.poll(() => exp('csv').getAttribute('data-disabled')).toBe('true');
      await expect.poll(() => exp('vllm').getAttribute('data-disabled')).toBe('false');
      await expect.poll(() => exp('trace').isDisabled()).toBe(true);
      await expect.poll(() => exp('csv').isDisabled()).toBe(true);
      const why = async (f: string) => page.locator(`#${await exp(f).getAttribute('aria-describedby')}`).textContent();
      expect(await why('trace')).toMatch(/^Perfetto trace: no per-request data .* the trace would be empty/);
      expect(await why('csv')).toMatch(/^CSV of requests: no per-request data .* only its header/);
      await page.evaluate(() => window.scrollTo(0, 0));
      expect(await inViewport(page, exp('vllm'))).toBe(true);
      const exportsTop = (await page.getByTestId('exports').boundingBox())!.y;
      expect(exportsTop).toBeLessThan((await page.getByTestId('metrics-table').boundingBox())!.y);
      await page.screenshot({ path: screenshotPath('run-imported-exports'), fullPage: false });
      // A run with its requests offers all three.
      await page.goto(`${dashboard.url}/#/runs/${cleanId}`);
      await page.getByTestId('timeline-row').first().waitFor();
      await expect.poll(() => exp('csv').getAttribute('data-disabled')).toBe('false');
      await expect.poll(() => exp('trace').getAttribute('data-disabled')).toBe('false');
      expect(await inViewport(page, exp('trace'))).toBe(true);
    });

    it('says what a detailed import lacks when its timeline cannot place the requests', async ({ page, dashboard }) => {
      const id = (
        await dashboard.api<{ runs: { id: string }[] }>(`/api/runs?q=${encodeURIComponent(`${DETAILED} #2`)}&limit=1`)
      ).runs[0].id;
      await page.goto(`${dashboard.url}/#/runs/${id}`);
      const gap = page.getByTestId('timeline-gap');
      await gap.waitFor();
      await expect
        .poll(() => gap.textContent())
        .toMatch(/no per-request start times \(vLLM writes them as start_times\)/);
      await expect.poll(() => page.getByTestId('export-trace').getAttribute('data-disabled')).toBe('true');
      await page.screenshot({ path: screenshotPath('run-detailed-import'), fullPage: false });
    });
  });

  describe('6: small things', () => {
    it('draws the chart hover band faint in dark mode', async ({ page, dashboard }) => {
      await page.emulateMedia({ colorScheme: 'dark' });
      try {
        await page.goto(`${dashboard.url}/#/runs/${failedId}`);
        const chart = page.locator('.chart').nth(1).locator('svg.recharts-surface[role="application"]');
        await chart.scrollIntoViewIfNeeded();
        await chart.waitFor();
        const box = (await chart.boundingBox())!;
        await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
        const cursor = page.locator('.chart').nth(1).locator('.recharts-tooltip-cursor');
        await cursor.waitFor();
        const [r, g, b, a] = await cursor.evaluate((el) => {
          // The computed fill in sRGB 0..1 with alpha, whatever notation Chromium serializes it in.
          const c = document.createElement('canvas').getContext('2d')!;
          c.fillStyle = getComputedStyle(el).fill;
          c.fillRect(0, 0, 1, 1);
          return Array.from(c.getImageData(0, 0, 1, 1).data).map((v) => v / 255);
        });
        // Composited over the dark panel (#1b1f26), the band stays dark.
        const over = (fg: number, bg: number) => fg * a + bg * (1 - a);
        const lum = 0.2126 * over(r, 0x1b / 255) + 0.7152 * over(g, 0x1f / 255) + 0.0722 * over(b, 0x26 / 255);
        expect(lum).toBeLessThan(0.25);
        await page.screenshot({ path: screenshotPath('chart-hover-dark'), fullPage: false });
      } finally {
        await page.emulateMedia({ colorScheme: 'light' });
      }
    });

    it('says "Compare 1 run" and names verdicts in words in the run picker', async ({ page, dashboard }) => {
      await importText(
        dashboard,
        JSON.stringify({
          backend: 'openai-chat-omni',
          model_id: 'openbmb/MiniCPM-o-4_5',
          num_prompts: 4,
          completed: 1,
          failed: 0,
          duration: 3,
          timed_out_requests: 1,
          not_dispatched_requests: 2,
          verdict: 'failed_closed',
          label: 'hand-made closed',
        }),
        'closed.json',
      );
      await page.goto(`${dashboard.url}/#/compare?ids=${cleanId}`);
      await page.getByTestId('compare-page').waitFor();
      await expect.poll(() => page.locator('.compare-page h1').textContent()).toBe('Compare 1 run');
      // The picker is one button until asked for.
      await page.getByTestId('compare-add-open').click();
      const found = page.getByTestId('compare-result');
      await expect
        .poll(async () => (await found.allTextContents()).join('\n'))
        .toContain('hand-made closed · failed closed');
      expect((await found.allTextContents()).join('\n')).not.toMatch(/_/);
    });

    it('says "No run with id X yet" for a run that does not exist', async ({ page, dashboard }) => {
      await page.goto(`${dashboard.url}/#/runs/no-such-run-42`);
      await expect
        .poll(() => page.getByTestId('run-missing').textContent())
        .toMatch(/^No run with id no-such-run-42 yet: this page shows it as soon as it is created/);
      await expect.poll(() => page.locator('main').textContent()).not.toMatch(/Something went wrong|Try again/);
      await page.goto(`${dashboard.url}/#/compare?ids=${cleanId},no-such-run-43`);
      await expect.poll(() => page.locator('main').textContent()).toMatch(/No run with id no-such-run-43\./);
      await expect.poll(() => page.locator('main').textContent()).not.toMatch(/Something went wrong/);
    });

    it('does not say "yet" on the charts of a finished run', async ({ page, dashboard }) => {
      await page.goto(`${dashboard.url}/#/runs/${failedId}`);
      const charts = page.getByTestId('charts');
      await charts.waitFor();
      await expect.poll(() => charts.textContent()).toContain('No request completed in this run.');
      await expect.poll(() => charts.textContent()).not.toContain('yet');
    });

    it('puts axis ticks at round steps', async ({ page, dashboard }) => {
      await page.setViewportSize({ width: 1280, height: 800 });
      await page.goto(`${dashboard.url}/#/runs/${cleanId}`);
      const charts = page.getByTestId('charts');
      await charts.scrollIntoViewIfNeeded();
      await charts.locator('.chart.small .recharts-bar-rectangle').first().waitFor();
      const xTicks = (fig: ReturnType<Page['locator']>) =>
        fig.locator('.recharts-xAxis-tick-labels .recharts-cartesian-axis-tick-label').allTextContents();
      const isRound = (step: number) => {
        const m = step / 10 ** Math.floor(Math.log10(step));
        return [1, 2, 5, 10].some((x) => Math.abs(m - x) < 1e-6);
      };
      // Time axes: evenly spaced ticks a round step apart, each a multiple of it.
      for (const fig of [charts.locator('.chart').nth(0), charts.locator('.chart').nth(1)]) {
        const ts = (await xTicks(fig)).map((t) => Number(t.replace(/s$/, '')));
        expect(ts.length).toBeGreaterThanOrEqual(2);
        const step = ts[1] - ts[0];
        expect(isRound(step), `time ticks ${ts.join(', ')}`).toBe(true);
        for (const t of ts) expect(Math.abs(t / step - Math.round(t / step))).toBeLessThan(1e-6);
      }
      // Histograms: the tooltip gives a bin's edges; the width is a round step and every tick lies on a bin edge.
      const hist = charts.locator('.chart.small').nth(1);
      const box = (await hist.locator('svg.recharts-surface[role="application"]').boundingBox())!;
      await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
      const tip = await hist.locator('.recharts-tooltip-label').textContent();
      const m = /^([\d,.]+)–([\d,.]+) ms$/.exec(tip ?? '');
      expect(m, `tooltip "${tip}"`).not.toBeNull();
      const [lo, hi] = [Number(m![1].replace(/,/g, '')), Number(m![2].replace(/,/g, ''))];
      const width = hi - lo;
      expect(isRound(width), `bin ${lo}–${hi}`).toBe(true);
      for (const t of (await xTicks(hist)).map((x) => Number(x.replace(/,/g, '')))) {
        expect(Math.abs(t / width - Math.round(t / width)), `tick ${t} on a ${width} grid`).toBeLessThan(1e-6);
      }
    });
  });
});
