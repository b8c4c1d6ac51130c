import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';
import react from '@vitejs/plugin-react';
import { DEFAULT_DASHBOARD_PORT } from './shared/protocol/dashboardPort.ts';
import { precompress } from './scripts/precompress.ts';
import { preloadApp } from './scripts/preloadApp.ts';

/**
 * Tests that measure real time against real threads, processes or a browser
 * (watchdog deadlines, timeouts racing stall reports, live ages, the stop of a
 * run and its loop delay, browser pages) are named `*.rt.test.ts`. They run
 * after the rest of the suite, at most REALTIME_FILES files at a time, so the
 * CPU they time is shared with one other timing file at most: their bounds
 * are set for that (the whole suite passes beside `stress-ng --cpu 2`, two
 * CPU hogs on two cores). The name is the marker: a new timing test cannot be
 * forgotten in a hand-kept list and land in the parallel pool.
 */
const REALTIME = ['test/**/*.rt.test.ts'];
const REALTIME_FILES = 2;
/**
 * The rest wait on sockets, child processes and databases more than they
 * compute: two files at a time even on 2 cores, where Vitest's default
 * (cores - 1) would run one (the suite's wall time: docs/performance.md#suite-time).
 */
const UNIT_FILES = Math.max(2, availableParallelism() - 1);

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
          maxWorkers: UNIT_FILES,
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
          maxWorkers: REALTIME_FILES,
          sequence: { groupOrder: 1 },
        },
      },
    ],
  },
});
