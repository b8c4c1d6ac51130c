/**
 * Code2Wav worker thread entry: owns the per-request caches of the requests
 * assigned to it and decodes one batch at a time. Imports no server code
 * beyond the kernels and the progress record.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { readlinkSync } from 'node:fs';
import { setPriority } from 'node:os';
import { createModel, SILENCE_CODE } from '../kernels/model.ts';
import { createProgressBuffer, ProgressWriter } from '../../watchdog/progress.ts';
import { decodeBatch, type DecodeContext } from './decodeBatch.ts';
import type { MainToWorker, WorkerInit, WorkerToMain } from './messages.ts';
import type { RequestState } from './requestState.ts';

const init = workerData as WorkerInit;

// Decode threads run at a slightly lower priority than the main thread (Linux:
// setpriority on this thread's id), so /health and the watchdog stay prompt
// while workers spin. Best effort: elsewhere the call is skipped.
try {
  const tid = Number(readlinkSync('/proc/thread-self').split('/').pop());
  if (Number.isInteger(tid) && tid > 0) setPriority(tid, 5);
} catch {
  /* not Linux, or not permitted */
}
const port = parentPort!;
const post = (m: WorkerToMain, transfer: ArrayBuffer[] = []) => port.postMessage(m, transfer);

let currentOp = 0;
const ctx: DecodeContext = {
  model: createModel(init.modelName),
  seed: init.seed,
  progress: new ProgressWriter(init.progress),
  states: new Map<string, RequestState>(),
  onPhase: (phase, details) => post({ type: 'phase', opId: currentOp, phase, details, ts: Date.now() }),
};

port.on('message', (msg: MainToWorker) => {
  switch (msg.type) {
    case 'decode': {
      currentOp = msg.opId;
      const t0 = performance.now();
      try {
        const outputs = decodeBatch(ctx, msg.opId, msg.items, msg.settings, msg.fault);
        const transfer = outputs.flatMap((o) => (o.wav ? [o.wav.buffer as ArrayBuffer] : []));
        post({ type: 'done', opId: msg.opId, outputs, durationMs: performance.now() - t0 }, transfer);
      } catch (err) {
        ctx.progress.end();
        const e = err instanceof Error ? err : new Error(String(err));
        post({ type: 'failed', opId: msg.opId, error: { name: e.name, message: e.message, stack: e.stack } });
      }
      break;
    }
    case 'release':
      for (const k of msg.keys) ctx.states.delete(k);
      break;
    default: {
      const never: never = msg;
      throw new Error(`unknown message ${JSON.stringify(never)}`);
    }
  }
});
// Warm the kernels up before taking live work (as vLLM-Omni warms HiFT up
// before live requests): a cold first decode is several times slower and
// would look like a stall to a tight watchdog. It uses a private progress
// record and its own cache, so nothing of it is visible outside the thread.
const warm: DecodeContext = {
  ...ctx,
  progress: new ProgressWriter(createProgressBuffer()),
  states: new Map(),
  onPhase: () => undefined,
};
const warmCodes = Int32Array.from({ length: 28 }, (_, i) => (i < 3 ? SILENCE_CODE : (i * 7919) % 6561));
decodeBatch(
  warm,
  0,
  [
    {
      key: 'warmup',
      requestId: 'warmup',
      chunkSeq: 0,
      cacheEpoch: 0,
      lastChunk: true,
      contextCodes: 3,
      codes: warmCodes,
    },
  ],
  { steps: 10, cfg: true, cfgRate: 0.7, mode: 'eager' },
  null,
);

post({ type: 'ready', workerId: init.workerId });
