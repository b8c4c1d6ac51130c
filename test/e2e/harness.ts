/**
 * What the browser tests and the web benchmarks need: a fresh web build
 * (once, only when web/ changed), the real dashboard server on a free port
 * with a temp data dir, and Debian's Chromium driven by playwright-core.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { ensureBuild } from '../helpers/ensureBuild.ts';

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

export interface RunningServer {
  url: string;
  dataDir: string;
  child: ChildProcess;
  /** SIGTERM (then SIGKILL after 5 s); removes the data dir unless `keepData` (a restart follows). */
  stop(opts?: { keepData?: boolean }): Promise<void>;
}

/** `stallscope serve --port <port|0> --data-dir <tmp>`; resolves with the URL it prints. */
export async function startServer(
  dataDir = mkdtempSync(join(tmpdir(), 'stallscope-e2e-')),
  opts: { port?: number } = {},
): Promise<RunningServer> {
  ensureBuild();
  const child = spawn(
    process.execPath,
    [join(ROOT, 'bin', 'stallscope.js'), 'serve', '--port', String(opts.port ?? 0), '--data-dir', dataDir],
    {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, NO_COLOR: '1' },
    },
  );
  let out = '';
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server printed no URL within 20 s:\n${out}`)), 20_000);
    const onData = (b: Buffer) => {
      out += b.toString();
      const m = /https?:\/\/(?:127\.0\.0\.1|localhost|\[::1\]):\d+/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(m[0]);
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`server exited with ${code} before listening:\n${out}`));
    });
  });
  return {
    url,
    dataDir,
    child,
    async stop(o: { keepData?: boolean } = {}) {
      if (child.exitCode === null && child.signalCode === null) {
        const exited = new Promise((r) => child.once('exit', r));
        child.kill('SIGTERM');
        const t = setTimeout(() => child.kill('SIGKILL'), 5000);
        await exited;
        clearTimeout(t);
      }
      if (!o.keepData) rmSync(dataDir, { recursive: true, force: true });
    },
  };
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
