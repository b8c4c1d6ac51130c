/**
 * The New-run form at 2 a.m., in Chromium at 1440 and 1024 px: the hang
 * preset keeps its fault through a trip to a URL target and back (the run it
 * starts stalls and fails closed, it does not pass clean), and Start with
 * several errors brings the first one on the page into view below the sticky
 * top bar, focused, its message readable. One server and one browser.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { openPage, screenshotPath, type Browser } from '#test/helpers/browser.ts';
import { startServer, type RunningServer } from '#test/helpers/dashboardProcess.ts';

let server: RunningServer;
let browser: Browser;
let page: Page;

async function api<T>(path: string): Promise<T> {
  const res = await fetch(server.url + path);
  if (!res.ok) throw new Error(`${path}: ${res.status} ${await res.text()}`);
  return (await res.json()) as T;
}

/** A fresh form of the hang preset (a hash link to the page already shown would keep its edits). */
async function openHangForm(): Promise<void> {
  await page.goto(`${server.url}/#/`);
  await page.goto(`${server.url}/#/new?preset=code2wav-hang`);
  await page.locator('#f-model').waitFor();
}

/** The box of an element relative to the viewport, and the bars that can cover it. */
async function boxes(sel: string) {
  return page.evaluate((s) => {
    const r = (el: Element | null) => (el ? el.getBoundingClientRect() : null);
    const field = r(document.querySelector(s));
    return {
      field: field && { top: field.top, bottom: field.bottom },
      barBottom: r(document.querySelector('.topbar'))!.bottom,
      actionsTop: r(document.querySelector('.sticky-actions'))!.top,
    };
  }, sel);
}

describe('the New-run form (Chromium)', () => {
  beforeAll(async () => {
    ({ browser, page } = await openPage());
    server = await startServer();
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  for (const width of [1440, 1024]) {
    it(`keeps the hang preset's fault through a URL target and back (${width} px)`, async () => {
      await page.setViewportSize({ width, height: 900 });
      await openHangForm();
      await expect.poll(() => page.locator('.fault').count()).toBe(1);
      await page.locator('#f-target-kind').selectOption('url');
      await page.locator('#f-target-baseUrl').fill('http://127.0.0.1:8001');
      await page.locator('#f-target-kind').selectOption('embedded');
      // Caught: the way back built a fresh embedded target: "No faults: the target runs clean", watchdog off.
      await expect.poll(() => page.locator('.fault').count()).toBe(1);
      await expect.poll(() => page.getByText('No faults: the target runs clean.').count()).toBe(0);
      await expect.poll(() => page.locator('#f-target-faults-0-phase').inputValue()).toBe('hift');
      await expect.poll(() => page.locator('#f-target-faults-0-kind').inputValue()).toBe('block');
      await expect.poll(() => page.locator('#f-target-watchdogTimeoutS').inputValue()).toBe('1');
      await expect.poll(() => page.getByTestId('preset-code2wav-hang').isChecked()).toBe(true);
      // And the way to the URL again gives back the URL typed in.
      await page.locator('#f-target-kind').selectOption('url');
      await expect.poll(() => page.locator('#f-target-baseUrl').inputValue()).toBe('http://127.0.0.1:8001');
    });
  }

  it('starts the run with the fault: it stalls and fails closed rather than passing clean', async () => {
    await page.setViewportSize({ width: 1440, height: 900 });
    await openHangForm();
    await page.locator('#f-target-kind').selectOption('url');
    await page.locator('#f-target-kind').selectOption('embedded');
    await page.locator('#f-numPrompts').fill('40');
    await page.getByTestId('start-run').click();
    await page.waitForURL(/#\/runs\//);
    const id = decodeURIComponent(/#\/runs\/([^?]+)/.exec(page.url())![1]);
    const spec = (await api<{ spec: { target: { faults: unknown[] } } }>(`/api/runs/${id}`)).spec;
    expect(spec.target.faults).toEqual([{ phase: 'hift', kind: 'block', after: 3 }]);
    let run = await api<{ status: string; verdict: string | null; stallCount: number }>(`/api/runs/${id}`);
    for (let i = 0; i < 150 && run.status === 'running'; i++) {
      await new Promise((r) => setTimeout(r, 200));
      run = await api(`/api/runs/${id}`);
    }
    expect(run.verdict).toBe('failed_closed');
    expect(run.stallCount).toBeGreaterThanOrEqual(1);
  }, 45_000);

  for (const width of [1440, 1024]) {
    it(`Start with several errors focuses the first on the page, below the top bar (${width} px)`, async () => {
      await page.setViewportSize({ width, height: 800 });
      await openHangForm();
      // The schema lists numPrompts before target.workers; the page shows workers first, at the top.
      await page.locator('#f-timeouts-totalS').fill('-1');
      await page.locator('#f-numPrompts').fill('0');
      await page.locator('#f-target-workers').fill('0');
      await expect.poll(() => page.locator('.field.has-error').count()).toBe(3);
      // From the bottom of the form, where Start is pressed after a long edit.
      await page.evaluate(() => window.scrollTo(0, document.documentElement.scrollHeight));
      await page.getByTestId('start-run').click();
      const first = await page.evaluate(() => document.querySelector('.field.has-error')?.getAttribute('data-field'));
      expect(first).toBe('target.workers');
      // Caught: focusing the schema's first error (numPrompts) left the top one above, under the bar.
      await expect.poll(() => page.evaluate(() => document.activeElement?.id)).toBe('f-target-workers');
      const b = await boxes('.field[data-field="target.workers"]');
      expect(b.field).not.toBeNull();
      // The whole field, label to message, between the top bar and the action bar.
      expect(b.field!.top).toBeGreaterThanOrEqual(b.barBottom);
      expect(b.field!.bottom).toBeLessThanOrEqual(b.actionsTop);
      await expect.poll(() => page.getByTestId('error-target.workers').isVisible()).toBe(true);
      await page.screenshot({ path: screenshotPath(`form-first-error-${width}`) });
    });
  }
});
