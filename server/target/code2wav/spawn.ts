/**
 * Starts a Code2Wav worker thread on the TypeScript entry.
 *
 * The worker side (entry, kernels, progress record) is bundled once per
 * process with esbuild (already present as the TypeScript loader's compiler)
 * into a plain ES module with an inline source map, so a worker starts in
 * ~0.1 s without a TypeScript loader and its frames still map back to the
 * .ts files. If esbuild cannot be loaded, a two-line bootstrap registers tsx
 * inside the worker instead (slower start, same behaviour).
 */
import { Worker } from 'node:worker_threads';
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { WorkerInit } from './worker/messages.ts';
import type * as Esbuild from 'esbuild';

const require = createRequire(import.meta.url);
const entryUrl = new URL('./worker/entry.ts', import.meta.url);
let bundleUrl: URL | null | undefined;

function bundledWorker(): URL | null {
  if (bundleUrl !== undefined) return bundleUrl;
  try {
    const esbuild = require('esbuild') as typeof Esbuild;
    const dir = new URL('./worker/', import.meta.url);
    const out = esbuild.buildSync({
      entryPoints: [fileURLToPath(entryUrl)],
      bundle: true,
      format: 'esm',
      platform: 'node',
      target: 'node20',
      write: false,
      sourcemap: 'inline',
      sourceRoot: dir.href,
      outfile: fileURLToPath(new URL('code2wav-worker.mjs', dir)),
      logLevel: 'silent',
    });
    bundleUrl = new URL(`data:text/javascript;base64,${Buffer.from(out.outputFiles[0].text).toString('base64')}`);
  } catch {
    bundleUrl = null;
  }
  return bundleUrl;
}

function tsxBootstrap(): string {
  const api = pathToFileURL(
    require.resolve('tsx/package.json').replace(/package\.json$/, 'dist/esm/api/index.mjs'),
  ).href;
  return `import(${JSON.stringify(api)}).then((m) => { m.register(); return import(${JSON.stringify(entryUrl.href)}); });`;
}

export function spawnCode2WavWorker(init: WorkerInit): Worker {
  const name = `code2wav-${init.workerId}`;
  const bundle = bundledWorker();
  // execArgv: [] keeps the parent's `--import tsx` (if any) out of the bundled worker.
  if (bundle) return new Worker(bundle, { execArgv: [], workerData: init, name });
  return new Worker(tsxBootstrap(), { eval: true, workerData: init, name });
}
