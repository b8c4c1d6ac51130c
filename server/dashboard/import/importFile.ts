/**
 * Stores a vLLM result file as runs: one run per object (an
 * `--append-result` JSON-lines file holds several benchmark runs, stored in
 * their order in the file). Parsing and interpreting happen in a worker
 * thread (parseWorker.ts), and everything is checked there before anything is
 * written, so a bad object stores nothing. The rows come back in slices, each
 * written in its own short transaction, and the file's object itself in ~1 MB
 * parts (runs.writeResultPart), one per turn, so a 28 MB import never holds
 * the event loop (REST, the live stream, the batched writer) for long. While its
 * rows are written, a run is `running`; a dashboard killed mid-import finds it
 * so on restart and records it as interrupted, never as a complete import.
 */
import { Worker } from 'node:worker_threads';
import { setImmediate as yieldTurn } from 'node:timers/promises';
import type { ImportReply } from '../../../shared/protocol/apiSchemas.ts';
import { ERRORS, StallscopeError, type ErrorCode } from '../../../shared/errors.ts';
import type { DashboardStore } from '../store/common/storeApi.ts';
import { RESULT_PART_CHARS, resultParts } from '../store/common/resultParts.ts';
import { newRunId } from '../runs/manager.ts';
import { redactUrl } from '../runs/redact.ts';
import { compiledModule } from '../../common/packageRoot.ts';
import type { ImportJob, ImportMessage } from './importMessages.ts';

/**
 * The parse worker runs compiled (dist/server/dashboard/import/parseWorker.js), with no
 * TypeScript loader and no run-time bundling, also when this module runs from
 * the sources (tests: their runner rebuilds a stale dist/ first).
 */
const WORKER_ENTRY = compiledModule('server/dashboard/import/parseWorker.js');
/** Rows per slice: one short transaction (~10 ms) between which other work runs. */
export const SLICE_ROWS = 2000;
/** The worker's heap: a huge file fails the import, never the dashboard. */
const WORKER_HEAP_MB = 1536;

export class ResultImporter {
  private readonly workers = new Set<Worker>();

  constructor(
    private readonly store: DashboardStore,
    private readonly sliceRows = SLICE_ROWS,
    private readonly resultPartChars = RESULT_PART_CHARS,
  ) {}

  /** Imports a file given as text or as its UTF-8 bytes (a buffer that owns its memory is moved to the worker). */
  async importText(text: string | Uint8Array, filename: string | null, now = Date.now()): Promise<ImportReply> {
    const job: ImportJob = { text, idBase: `import-${newRunId(new Date(now))}`, sliceRows: this.sliceRows };
    // Moved, not copied, when the bytes are all of their ArrayBuffer (never a slice of Node's shared buffer pool).
    const owns = typeof text !== 'string' && text.byteOffset === 0 && text.byteLength === text.buffer.byteLength;
    const opts = {
      workerData: job,
      transferList: owns ? [text.buffer as ArrayBuffer] : [],
      resourceLimits: { maxOldGenerationSizeMb: WORKER_HEAP_MB },
      name: 'import',
    };
    // execArgv: [] keeps a parent's `--import tsx` (tests) out of the worker: it runs compiled code.
    const worker = new Worker(WORKER_ENTRY, { ...opts, execArgv: [] });
    this.workers.add(worker);
    const written: string[] = [];
    const runs: ImportReply['runs'] = [];
    let current: Extract<ImportMessage, { type: 'run' }> | null = null;
    let stopped = false;
    const finishCurrent = async () => {
      if (!current) return;
      const run = current;
      current = null;
      // The file's object in bounded parts, one per turn: a 28 MB one written at once held the loop ~0.1 s.
      const parts = resultParts(run.resultJson, this.resultPartChars);
      for (let p = 0; p < parts.length; p++) {
        if (stopped) return;
        await this.store.runWrites.writeResultPart(run.id, p, parts[p]);
        await yieldTurn();
      }
      if (stopped) return;
      const finishedAtMs = run.startedAtMs !== null ? run.startedAtMs + run.summary.durationS * 1000 : null;
      await this.store.runWrites.update(run.id, { status: 'finished', finishedAtMs, resultParts: parts.length });
    };
    const handle = async (m: ImportMessage, resolve: () => void, reject: (e: Error) => void) => {
      if (stopped) return;
      if (m.type === 'run') {
        await finishCurrent();
        current = m;
        written.push(m.id);
        runs.push(await this.insertRun(m, filename, now));
      } else if (m.type === 'rows') {
        await this.store.runWrites.writeRows(m.id, m);
        // Ask for the next slice only after other work had a turn.
        await yieldTurn();
        if (!stopped) worker.postMessage('next');
      } else if (m.type === 'done') {
        await finishCurrent();
        resolve();
      } else {
        const err = new StallscopeError(m.code, undefined, m.field);
        err.message = namingFile(m.message, m.code, filename); // already "<the code's message>: <detail>"
        reject(err);
      }
    };
    try {
      await new Promise<void>((resolve, reject) => {
        // Messages are handled one after another, each possibly over several turns (a result's parts).
        let chain = Promise.resolve();
        let workerDone = false;
        worker.on('message', (m: ImportMessage) => {
          if (m.type === 'done' || m.type === 'error') workerDone = true;
          chain = chain
            .then(() => handle(m, resolve, reject))
            .catch((e: unknown) => reject(e instanceof Error ? e : new Error(String(e))));
        });
        worker.once('error', (e) =>
          reject(
            (e as NodeJS.ErrnoException).code === 'ERR_WORKER_OUT_OF_MEMORY'
              ? new StallscopeError('API_PAYLOAD_TOO_LARGE', 'the file is too large to import at once')
              : e,
          ),
        );
        // After its last message the worker ends while that message's parts may still be being written.
        worker.once('exit', (code) => {
          if (!workerDone) reject(new Error(`the import worker exited (${code}) before it was done`));
        });
      });
    } catch (e) {
      // Only an internal failure can come after the first run was written: leave nothing half-imported.
      for (const id of written) await this.store.runWrites.delete(id).catch(() => false);
      throw e;
    } finally {
      stopped = true;
      this.workers.delete(worker);
      void worker.terminate();
    }
    return { runs };
  }

  private async insertRun(m: Extract<ImportMessage, { type: 'run' }>, filename: string | null, now: number) {
    // An object's own --label names it; otherwise the file does, numbered when it holds several runs.
    const label =
      m.label ?? (m.of > 1 ? `${filename ?? 'imported result'} #${m.index + 1}` : (filename ?? 'imported result'));
    const metadata = { ...m.metadata, ...(filename ? { 'import.file': filename } : {}) };
    await this.store.runWrites.insertWhole(
      {
        id: m.id,
        source: 'import',
        status: 'running',
        label,
        model: m.model,
        target: redactUrl(m.target),
        dataset: m.dataset,
        numPrompts: m.numPrompts,
        maxConcurrency: m.maxConcurrency,
        requestRate: m.requestRate,
        failFast: m.failFast,
        // Newest first in the list: one ms less per object keeps a JSON-lines file's runs in their order
        // in the file (#1 first), as the tie-break on insertion order does for runs created in the same ms.
        createdAtMs: now - m.index,
        startedAtMs: m.startedAtMs,
        metadata,
      },
      {
        verdict: m.summary.verdict,
        summary: m.summary,
        importInfo: { file: filename, object: m.index + 1, of: m.of, present: m.present, missing: m.missing },
      },
    );
    return { id: m.id, label, present: m.present, missing: m.missing };
  }

  /** Stops imports in progress (dashboard shutdown); their runs are then recorded as interrupted on the next start. */
  async shutdown(): Promise<void> {
    await Promise.all([...this.workers].map((w) => w.terminate()));
  }
}

/**
 * A refusal names the file it is about (its name as uploaded, quoted): a
 * bare "object 2 is not valid JSON" does not say which of several uploads.
 */
function namingFile(message: string, code: ErrorCode, filename: string | null): string {
  const head = `${ERRORS[code].message}: `;
  if (filename === null || !message.startsWith(head)) return message;
  return `${head}${JSON.stringify(filename)}: ${message.slice(head.length)}`;
}
