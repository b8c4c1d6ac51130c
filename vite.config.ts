import { defineConfig } from 'vitest/config';
import react from '@vitejs/plugin-react';

/**
 * Tests that measure real time against real threads, processes or a browser
 * (watchdog deadlines, timeouts racing stall reports, live ages). On a
 * 2-core machine they run one file at a time, after the rest of the suite, so
 * no other test file steals the CPU they are timing.
 */
const REALTIME = [
  'test/e2e/**/*.test.ts',
  'test/server/runs/e2e.test.ts',
  'test/server/target/watchdog.test.ts',
  'test/server/target/failFast.test.ts',
  'test/server/target/ops.test.ts',
  'test/server/target/lifecycle.test.ts',
  // Real time against a real event loop: a 28 MB import and 15 MB ingests (loop delay); the shutdown deadline.
  'test/server/hardening/freezes.test.ts',
  'test/server/hardening/shutdown.test.ts',
  // Wall-clock bounds and time ratios: the kernels' cost ratios (CFG, frames),
  // real-time dispatch and arrival schedules, retry spacing, report latency.
  'test/server/target/kernels.test.ts',
  'test/server/bench/dispatch.test.ts',
  'test/server/bench/engine.test.ts',
  'test/server/bench/attempt.test.ts',
  'test/server/runs/remote.test.ts',
  'test/server/app/security.test.ts',
  'test/server/bench/breakerMatrix.test.ts',
  'test/server/bench/boundedStop.test.ts',
  // The stop of a run with 200,000 queued requests: its duration and the event loop's longest block.
  'test/server/bench/queuedStop.test.ts',
  // The Seed-TTS gate: real espeak-ng + pocketsphinx processes; an interrupt's latency and a fail-fast timeout.
  'test/server/bench/accuracy/realSpeech.test.ts',
  'test/server/bench/accuracy/gate.test.ts',
  // Fresh processes whose first request's client CPU is compared with a later one's.
  'test/server/bench/warm/firstRequest.test.ts',
  'test/server/serverStacks/cli.test.ts',
];

// globalSetup: the bin, the embedded target and the Code2Wav workers run compiled (dist/), so it is rebuilt when stale.
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
  plugins: [react()],
  build: { outDir: '../dist/web', emptyOutDir: true },
  server: { proxy: { '/api': 'http://127.0.0.1:7077', '/ws': { target: 'ws://127.0.0.1:7077', ws: true } } },
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
          fileParallelism: false,
          sequence: { groupOrder: 1 },
        },
      },
    ],
  },
});
