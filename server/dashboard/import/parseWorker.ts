/**
 * Worker-thread side of an import: parses a vLLM result file and interprets
 * every object (server/dashboard/import/vllmResult.ts) off the dashboard's event loop —
 * a 28 MB file is seconds of parsing that would otherwise stall every other
 * request and the live stream. Everything is checked before the first message
 * goes out (a bad object stores nothing); then each run is posted as its
 * head (serialized once, here) followed by its request rows in slices, one
 * slice each time the main thread has stored the last and asks for the next.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { StallscopeError } from '../../../shared/errors.ts';
import { parseResultText } from '../../../shared/vllmResult/pyJson.ts';
import { columnIssue, interpretResult } from './vllmResult.ts';
import type { ImportJob, ImportMessage } from './importMessages.ts';

const job = workerData as ImportJob;
const post = (m: ImportMessage) => parentPort!.postMessage(m);
/**
 * Waits for the main thread to ask for more: it stores one slice per turn of
 * its event loop, and a port delivers every queued message in one go, so
 * slices posted ahead would all be stored in one long block.
 */
const next = () => new Promise<void>((resolve) => parentPort!.once('message', () => resolve()));

try {
  const objects = parseResultText(typeof job.text === 'string' ? job.text : new TextDecoder().decode(job.text));
  const runs = objects.map((o, i) => {
    const id = `${job.idBase}${objects.length > 1 ? `-${i + 1}` : ''}`;
    const run = interpretResult(o, id, i);
    // Only what reaches a column is checked: the object itself is stored as JSON text, which escapes anything.
    const issue = columnIssue(o, run.metadata);
    if (issue)
      throw new StallscopeError('API_IMPORT_INVALID', `object ${i + 1}: ${issue.field} ${issue.message}`, issue.field);
    return { o, id, run };
  });
  for (const [i, { o, id, run }] of runs.entries()) {
    post({
      type: 'run',
      index: i,
      of: objects.length,
      id,
      label: typeof o.label === 'string' && o.label ? o.label : null,
      model: typeof o.model_id === 'string' ? o.model_id : null,
      target: typeof o.base_url === 'string' ? o.base_url : null,
      dataset: typeof o.dataset_name === 'string' ? o.dataset_name : null,
      numPrompts: typeof o.num_prompts === 'number' ? o.num_prompts : null,
      maxConcurrency: typeof o.max_concurrency === 'number' ? o.max_concurrency : null,
      requestRate: run.requestRate,
      failFast: o.fail_fast_enabled === true,
      startedAtMs: run.startedAtMs,
      metadata: run.metadata,
      summary: run.summary,
      resultJson: JSON.stringify(o),
      present: run.present,
      missing: run.missing,
      rows: run.rows.length,
    });
    for (let k = 0; k < run.rows.length; k += job.sliceRows) {
      const slice = run.rows.slice(k, k + job.sliceRows);
      post({
        type: 'rows',
        id,
        index: slice.map((r) => r.index),
        status: slice.map((r) => r.status),
        json: slice.map((r) => JSON.stringify(r)),
      });
      await next();
    }
  }
  post({ type: 'done' });
} catch (e) {
  post(
    e instanceof StallscopeError
      ? { type: 'error', code: e.code, message: e.message, field: e.field }
      : // Said as every refusal is: the code's words, then the reason.
        {
          type: 'error',
          code: 'API_IMPORT_INVALID',
          message: new StallscopeError('API_IMPORT_INVALID', (e as Error).message).message,
        },
  );
}
