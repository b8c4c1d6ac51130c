/**
 * Starts a Code2Wav worker thread on the TypeScript entry. Worker threads do
 * not inherit the parent's module hooks, so a two-line bootstrap registers
 * tsx inside the worker before importing the entry.
 */
import { Worker } from 'node:worker_threads';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import type { WorkerInit } from './worker/messages.ts';

const tsxApi = pathToFileURL(
  createRequire(import.meta.url).resolve('tsx/package.json').replace(/package\.json$/, 'dist/esm/api/index.mjs'),
).href;
const entry = new URL('./worker/entry.ts', import.meta.url).href;
const bootstrap = `import(${JSON.stringify(tsxApi)}).then((m) => { m.register(); return import(${JSON.stringify(entry)}); });`;

export function spawnCode2WavWorker(init: WorkerInit): Worker {
  return new Worker(bootstrap, { eval: true, workerData: init, name: `code2wav-${init.workerId}` });
}
