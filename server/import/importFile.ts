/**
 * Stores a vLLM result file as runs: one run per object (an
 * `--append-result` JSON-lines file holds several benchmark runs).
 * Everything is parsed and checked before anything is written, so a bad
 * object stores nothing.
 */
import type { ImportReply } from '../../shared/apiSchemas.ts';
import { parseResultText } from '../bench/results/resultJson.ts';
import type { Store } from '../store/store.ts';
import { newRunId } from '../runs/manager.ts';
import { interpretResult } from './vllmResult.ts';

export function importResultFile(store: Store, text: string, filename: string | null, now = Date.now()): ImportReply {
  const objects = parseResultText(text);
  const parsed = objects.map((o, i) => {
    const id = `import-${newRunId(new Date(now))}${objects.length > 1 ? `-${i + 1}` : ''}`;
    return { o, id, run: interpretResult(o, id, i) };
  });
  const runs: ImportReply['runs'] = [];
  store.db.transaction(() => {
    for (const [i, { o, id, run }] of parsed.entries()) {
      // An object's own --label names it; otherwise the file does, numbered when it holds several runs.
      const own = typeof o.label === 'string' && o.label ? o.label : null;
      const label =
        own ?? (objects.length > 1 ? `${filename ?? 'imported result'} #${i + 1}` : (filename ?? 'imported result'));
      const metadata = { ...run.metadata, ...(filename ? { 'import.file': filename } : {}) };
      store.runs.insertRun({
        id,
        source: 'import',
        status: 'finished',
        label,
        model: typeof o.model_id === 'string' ? o.model_id : null,
        target: typeof o.base_url === 'string' ? o.base_url : null,
        dataset: typeof o.dataset_name === 'string' ? o.dataset_name : null,
        numPrompts: typeof o.num_prompts === 'number' ? o.num_prompts : null,
        maxConcurrency: typeof o.max_concurrency === 'number' ? o.max_concurrency : null,
        requestRate: run.requestRate,
        failFast: o.fail_fast_enabled === true,
        // The list is newest first with ties broken by id (random): one ms less per object keeps a
        // JSON-lines file's runs in their order in the file (#1 first).
        createdAtMs: now - i,
        startedAtMs: run.startedAtMs,
        metadata,
      });
      const importInfo = {
        file: filename,
        object: i + 1,
        of: objects.length,
        present: run.present,
        missing: run.missing,
      };
      store.runs.update(id, {
        verdict: run.summary.verdict,
        summary: run.summary,
        result: o,
        importInfo,
        finishedAtMs: run.startedAtMs !== null ? run.startedAtMs + run.summary.durationS * 1000 : null,
      });
      store.runs.insertRequests(id, run.rows);
      runs.push({ id, label, present: run.present, missing: run.missing });
    }
  })();
  return { runs };
}
