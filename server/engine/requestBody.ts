/**
 * The request vLLM-Omni's openai-chat-omni backend sends
 * (docs/design.md#request): common keys, then `--extra-body` merged shallowly at the top
 * level, then the row's own keys, then defaults for keys still absent.
 */
import type { BenchConfig } from './config.ts';
import type { SampleRequest } from './datasets/sample.ts';

export async function buildRequestBody(config: BenchConfig, sample: SampleRequest): Promise<string> {
  const body: Record<string, unknown> = {
    model: config.servedModelName || config.model,
    messages: sample.messages,
    temperature: 0,
    max_tokens: sample.outputLen,
    stream: true,
    stream_options: { include_usage: true, continuous_usage_stats: true },
  };
  if (config.ignoreEos) body.ignore_eos = true;
  if (config.extraBody) Object.assign(body, config.extraBody);
  if (requestsStageMetrics(config) && !('return_stage_metrics' in body)) body.return_stage_metrics = true;
  if (sample.rowBody) Object.assign(body, sample.rowBody);
  if (sample.loadRowBody) Object.assign(body, await sample.loadRowBody());
  if (sample.bodyDefaults) {
    for (const [k, v] of Object.entries(sample.bodyDefaults)) if (!(k in body)) body[k] = v;
  }
  return JSON.stringify(body);
}

/**
 * vLLM-Omni's should_request_stage_metrics: its main() adds
 * `return_stage_metrics: true` to the extra body for --print-stage, for the
 * openai-chat-omni backend when tpot or itl is a percentile metric (as by
 * default; current upstream), or when the modalities include image. An
 * explicit value in --extra-body is kept.
 */
export function requestsStageMetrics(config: BenchConfig): boolean {
  if (config.printStage) return true;
  if (config.backend === 'openai-chat-omni' && config.percentileMetrics.some((m) => m === 'tpot' || m === 'itl'))
    return true;
  const modalities = config.extraBody?.modalities;
  return Array.isArray(modalities) && modalities.includes('image');
}

/** Headers for one request; `x-request-id` last so a --header cannot replace it. */
export function buildHeaders(config: BenchConfig, requestId: string): Record<string, string> {
  const h: Record<string, string> = { 'content-type': 'application/json' };
  if (config.apiKey) h.authorization = `Bearer ${config.apiKey}`;
  if (config.headers) for (const [k, v] of Object.entries(config.headers)) h[k.toLowerCase()] = v;
  h['x-request-id'] = requestId;
  return h;
}

/** Default request-id prefix: `<runId>-`. */
export function requestIdPrefix(config: BenchConfig): string {
  return config.requestIdPrefix ?? `${config.runId}-`;
}
