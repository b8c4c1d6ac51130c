import { defineConfig } from 'vitest/config';
import react from '@vitejs/plugin-react';
import { DEFAULT_DASHBOARD_PORT } from './shared/protocol/dashboardPort.ts';
import { precompress } from './scripts/precompress.ts';
import { preloadApp } from './scripts/preloadApp.ts';

/**
 * Tests that measure real time against real threads, processes or a browser
 * (watchdog deadlines, timeouts racing stall reports, live ages, the stop of a
 * run and its loop delay, browser pages) are named `*.rt.test.ts`. On a 2-core
 * machine they run one file at a time, after the rest of the suite, so no
 * other test file steals the CPU they are timing. The name is the marker: a
 * new timing test cannot be forgotten in a hand-kept list and land in the
 * parallel pool.
 */
const REALTIME = ['test/**/*.rt.test.ts'];

// globalSetup: the bin, the embedded repro server and the Code2Wav workers run compiled (dist/), so it is rebuilt when stale.
const shared = {
  root: '.',
  testTimeout: 20_000,
  hookTimeout: 60_000,
  pool: 'forks' as const,
  globalSetup: ['test/globalSetup.ts'],
};

// One config for the web build (root: web/, output: dist/web) and for Vitest.
export default defineConfig({
  root: 'web',
  // precompress: the built files' .br and .gz copies, which the dashboard serves as they are (plugins/webStatic.ts).
  // preloadApp: index.html fetches the app (web/start.tsx and its chunks) beside the small entry.
  plugins: [react(), preloadApp(/[\\/]web[\\/]start\.tsx$/), precompress()],
  build: { outDir: '../dist/web', emptyOutDir: true },
  server: {
    proxy: {
      '/api': `http://127.0.0.1:${DEFAULT_DASHBOARD_PORT}`,
      '/ws': { target: `ws://127.0.0.1:${DEFAULT_DASHBOARD_PORT}`, ws: true },
    },
  },
  test: {
    root: '.',
    reporters: ['default', './test/closingLineReporter.ts'],
    projects: [
      {
        test: {
          ...shared,
          name: 'unit',
          include: ['test/**/*.test.ts', 'test/**/*.test.tsx'],
          exclude: ['**/node_modules/**', ...REALTIME],
          sequence: { groupOrder: 0 },
        },
      },
      {
        test: {
          ...shared,
          name: 'realtime',
          include: REALTIME,
          // The browser tests read a page through expect.poll (test/architecture/browserReadsWait.test.ts): its
          // default 1 s deadline is what a loaded 2-core machine misses, so they wait up to 10 s for what they assert.
          expect: { poll: { timeout: 10_000, interval: 50 } },
          fileParallelism: false,
          sequence: { groupOrder: 1 },
        },
      },
    ],
  },
});
