/**
 * Starts a Code2Wav worker thread on the compiled worker entry
 * (dist/server/repro/code2wav/worker/entry.js). Plain JavaScript, so the
 * thread needs no TypeScript loader and starts in tens of milliseconds, and
 * its frames map back to the .ts files through the build's source maps
 * (the watchdog reads them, see watchdog/sourceMap.ts). Also when this module
 * runs from the sources (tests, `npm run bench`): their runners rebuild a
 * stale dist/ first.
 */
import { existsSync } from 'node:fs';
import { Worker } from 'node:worker_threads';
import { compiledModule } from '../../common/packageRoot.ts';
import type { WorkerInit } from './worker/messages.ts';

const ENTRY = compiledModule('server/repro/code2wav/worker/entry.js');

export function spawnCode2WavWorker(init: WorkerInit): Worker {
  if (!existsSync(ENTRY)) throw new Error(`the compiled Code2Wav worker is missing (${ENTRY}): run npm run build`);
  // execArgv: [] keeps a parent's `--import tsx` (tests, bench) out of the worker: it runs compiled code.
  return new Worker(ENTRY, { execArgv: [], workerData: init, name: `code2wav-${init.workerId}` });
}
