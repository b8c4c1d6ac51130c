/**
 * What the run header says a run ran against and how hard, from what is known
 * of it: the stored detail (the run manager's spec, a reporter's config, an
 * imported file) and, when the detail lacks it, the engine's own `run.started`
 * (a reported run created without a config tells its target and load only
 * there). Never a bare "?": what is not known yet is said so, and an import
 * names its file, since a vLLM result records no target URL.
 */
import type { RunDetail } from '../../shared/protocol/apiSchemas.ts';
import { count } from '../../shared/format.ts';
import { rateLabel } from '../../shared/runInfo/rateLabel.ts';
import { redactUrl } from '../../shared/redact.ts';
import type { RunModel } from '../../shared/runView/runModel.ts';

type FactsDetail = Pick<RunDetail, 'source' | 'target' | 'maxConcurrency' | 'requestRate' | 'config' | 'importInfo'>;

/** The file an import came from, when the importer recorded one. */
function importedFile(importInfo: unknown): string | null {
  const file = (importInfo as { file?: unknown } | null)?.file;
  return typeof file === 'string' && file ? file : null;
}

/** Where the run sent its requests: a URL, `embedded`, the file of an import, or that it is not known yet. */
export function targetWords(d: FactsDetail, info: RunModel['info']): string {
  if (d.target) return d.target;
  if (info?.baseUrl) return redactUrl(info.baseUrl);
  if (d.source === 'import') {
    const file = importedFile(d.importInfo);
    return file ? `imported from ${file}` : 'imported from a result file';
  }
  return 'target not reported yet';
}

/**
 * "concurrency 10 · rate inf"; null when nothing says it yet (a reported run
 * before its config or its run.started). A known config without a limit is ∞.
 */
export function loadWords(d: FactsDetail, info: RunModel['info']): string | null {
  const rate = d.requestRate ?? (info ? rateLabel(info.requestRate) : null);
  const configured = d.config !== null && d.config !== undefined && Object.keys(d.config).length > 0;
  if (rate === null && !info && !configured) return null;
  const limit = d.maxConcurrency ?? info?.maxConcurrency ?? null;
  const parts = [`concurrency ${limit === null ? '∞' : count(limit)}`];
  if (rate !== null) parts.push(`rate ${rate}`);
  return parts.join(' · ');
}

/**
 * What a running run is doing before its clock starts (no run.started yet),
 * said instead of "elapsed 0.0 s" and a total of 0: the embedded reproduction
 * server takes seconds to start, a URL target is checked first, a reporting
 * CLI has created the run but not started it. Null once started or ended.
 */
export function startingWords(
  d: Pick<RunDetail, 'source' | 'target'>,
  m: Pick<RunModel, 'info'>,
  running: boolean,
): string | null {
  if (!running || m.info) return null;
  if (d.target === 'embedded') return 'starting the reproduction server';
  if (d.source === 'cli') return 'waiting for the reporting CLI to start the run';
  return 'checking that the target is ready';
}
