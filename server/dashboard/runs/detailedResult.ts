/**
 * A dashboard run's stored result with vLLM's per-request arrays
 * (`--save-detailed`: input_lens, start_times, output_lens, ttfts, itls,
 * generated_texts, errors) in dataset order. The engine only builds them when
 * it also writes a file (config.save), and a dashboard run writes none, so
 * they are built here from the engine's records with the engine's own
 * builder and spliced in where vLLM puts them.
 */
import { buildResultJson, type ResultJsonInput } from '../../../shared/vllmResult/resultJson.ts';
import { emptyCounts } from '../../../shared/outcomes.ts';

const ARRAYS = ['input_lens', 'start_times', 'output_lens', 'ttfts', 'itls', 'generated_texts', 'errors'] as const;

export function withDetailedArrays(
  result: Record<string, unknown>,
  records: ResultJsonInput['records'],
): Record<string, unknown> {
  if ('ttfts' in result) return result;
  const keys = Object.keys(result);
  // The metric region: after request_goodput (always written) up to our own keys.
  const from = keys.indexOf('request_goodput');
  const to = keys.indexOf('timed_out_requests');
  if (from < 0 || to < 0) return result;
  const metrics: Record<string, number> = {};
  for (const k of keys.slice(from + 1, to)) if (typeof result[k] === 'number') metrics[k] = result[k];
  // Built once with the same metric keys: it yields the arrays and the key they must precede.
  const ref = buildResultJson({
    date: '',
    backend: '',
    label: null,
    modelId: '',
    numPrompts: records.length,
    requestRate: Infinity,
    burstiness: 1,
    maxConcurrency: null,
    metrics,
    detailed: true,
    records,
    statuses: [],
    counts: emptyCounts(),
    failFast: { enabled: false, tripped: false, cause: null },
    verdict: 'passed',
    verdictReasons: [],
  });
  const refKeys = Object.keys(ref);
  const after = refKeys[refKeys.indexOf('errors') + 1];
  const before = after !== undefined && after in metrics ? after : 'timed_out_requests';
  const out: Record<string, unknown> = {};
  for (const k of keys) {
    if (k === before) for (const a of ARRAYS) out[a] = ref[a];
    out[k] = result[k];
  }
  return out;
}
