import { defineConfig } from 'vitest/config';
import react from '@vitejs/plugin-react';

// One config for the web build (root: web/, output: dist/web) and for Vitest.
export default defineConfig({
  root: 'web',
  plugins: [react()],
  build: { outDir: '../dist/web', emptyOutDir: true },
  server: { proxy: { '/api': 'http://127.0.0.1:7077', '/ws': { target: 'ws://127.0.0.1:7077', ws: true } } },
  test: {
    root: '.',
    include: ['test/**/*.test.ts', 'test/**/*.test.tsx'],
    testTimeout: 20_000,
    hookTimeout: 30_000,
    pool: 'forks',
    reporters: ['default', './test/closingLineReporter.ts'],
  },
});
