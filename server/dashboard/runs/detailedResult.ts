/**
 * A dashboard run's stored result with vLLM's per-request arrays
 * (`--save-detailed`: input_lens, start_times, output_lens, ttfts, itls,
 * generated_texts, errors) in dataset order. The engine only builds them when
 * it also writes a file (config.save), and a dashboard run writes none, so
 * they are built here from the engine's records with the engine's own
 * builder and spliced in where vLLM puts them.
 */
import { buildResultJson, type ResultJsonInput } from '../../../shared/vllmResult/resultJson.ts';
import { emptyCounts } from '../../../shared/requests/outcomes.ts';

const ARRAYS = ['input_lens', 'start_times', 'output_lens', 'ttfts', 'itls', 'generated_texts', 'errors'] as const;

export function withDetailedArrays(
  result: Record<string, unknown>,
  records: ResultJsonInput['records'],
): Record<string, unknown> {
  const before = detailedArraysBefore(result);
  if (before === null) return result;
  const ref = buildResultJson(referenceInput(result, records));
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(result)) {
    if (k === before) for (const a of ARRAYS) out[a] = ref[a];
    out[k] = result[k];
  }
  return out;
}

/** The metric keys of a result: after request_goodput (always written) up to our own keys. */
function metricsOf(result: Record<string, unknown>): Record<string, number> | null {
  const keys = Object.keys(result);
  const from = keys.indexOf('request_goodput');
  const to = keys.indexOf('timed_out_requests');
  if (from < 0 || to < 0) return null;
  const metrics: Record<string, number> = {};
  for (const k of keys.slice(from + 1, to)) if (typeof result[k] === 'number') metrics[k] = result[k];
  return metrics;
}

/**
 * The key of `result` the per-request arrays go before (where vLLM puts
 * them), or null when it has them already or is not a result of ours.
 */
export function detailedArraysBefore(result: Record<string, unknown>): string | null {
  if ('ttfts' in result) return null;
  const metrics = metricsOf(result);
  if (!metrics) return null;
  // Built with the same metric keys and no record: it yields the key the arrays must precede.
  const refKeys = Object.keys(buildResultJson(referenceInput(result, [])));
  const after = refKeys[refKeys.indexOf('errors') + 1];
  return after !== undefined && after in metrics ? after : 'timed_out_requests';
}

function referenceInput(result: Record<string, unknown>, records: ResultJsonInput['records']): ResultJsonInput {
  return {
    date: '',
    backend: '',
    label: null,
    modelId: '',
    numPrompts: records.length,
    requestRate: Infinity,
    burstiness: 1,
    maxConcurrency: null,
    metrics: metricsOf(result) ?? {},
    detailed: true,
    records,
    statuses: [],
    counts: emptyCounts(),
    failFast: { enabled: false, tripped: false, cause: null },
    verdict: 'passed',
    verdictReasons: [],
  };
}
