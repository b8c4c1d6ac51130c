/**
 * What the browser tests and the web benchmarks need of a browser: a fresh
 * web build (once, only when web/ changed) and Debian's Chromium driven by
 * playwright-core. The dashboard they open is dashboardProcess.ts's.
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { ensureBuild } from './ensureBuild.ts';

export const ROOT = fileURLToPath(new URL('../../', import.meta.url));
export const CHROMIUM = process.env.STALLSCOPE_CHROMIUM ?? '/usr/bin/chromium';
export const SCREENSHOTS = join(ROOT, 'test-output', 'screenshots');

/** Fails with instructions (never skips) when the system Chromium is not there. */
export function requireChromium(): string {
  if (!existsSync(CHROMIUM)) {
    throw new Error(
      `Chromium is missing (looked for ${CHROMIUM}). The browser tests drive Debian's Chromium: install it with ` +
        '`sudo apt-get install -y chromium` (or set STALLSCOPE_CHROMIUM to a Chromium binary), then run the tests again.',
    );
  }
  return CHROMIUM;
}

/** Build dist/ (the compiled server and the production web UI) when it is missing or older than its sources. */
export function ensureWebBuild(): void {
  ensureBuild({ web: true });
}

export interface Browser {
  context: BrowserContext;
  close(): Promise<void>;
}

/** Headless Chromium with a throwaway profile, 1280×800. */
export async function launchBrowser(
  opts: { width?: number; height?: number; colorScheme?: 'light' | 'dark' } = {},
): Promise<Browser> {
  const executablePath = requireChromium();
  const profile = mkdtempSync(join(tmpdir(), 'stallscope-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath,
    headless: true,
    viewport: { width: opts.width ?? 1280, height: opts.height ?? 800 },
    colorScheme: opts.colorScheme ?? 'light',
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
      '--disable-quic',
    ],
  });
  return {
    context,
    async close() {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

/**
 * The browser tests' setup: the web build, Chromium and one page with a 10 s
 * default timeout. Throws the install hint when Chromium is missing.
 */
export async function openPage(): Promise<{ browser: Browser; page: Page }> {
  requireChromium();
  ensureWebBuild();
  const browser = await launchBrowser();
  const page = await browser.context.newPage();
  page.setDefaultTimeout(10_000);
  return { browser, page };
}

export function screenshotPath(name: string): string {
  mkdirSync(SCREENSHOTS, { recursive: true });
  return join(SCREENSHOTS, `${name}.png`);
}
