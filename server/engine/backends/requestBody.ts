/**
 * The request vLLM-Omni's openai-chat-omni backend sends
 * (docs/design.md#request): common keys, then `--extra-body` merged shallowly at the top
 * level, then the row's own keys, then defaults for keys still absent.
 */
import type { RunConfig } from '../../../shared/config/runConfig.ts';
import type { SampleRequest } from '../datasets/sample.ts';

export async function buildRequestBody(config: RunConfig, sample: SampleRequest): Promise<string | Uint8Array> {
  if (sample.promptBytes && sample.messagesWith && !sample.rowBody && !sample.loadRowBody) {
    const t = template(config, sample, sample.messagesWith);
    if (t) {
      const prompt = sample.promptBytes();
      const out = Buffer.allocUnsafe(t.head.length + prompt.length + t.tail.length);
      t.head.copy(out, 0);
      out.set(prompt, t.head.length);
      t.tail.copy(out, t.head.length + prompt.length);
      return out;
    }
  }
  const body = bodyObject(config, sample, sample.messages);
  if (sample.loadRowBody) Object.assign(body, await sample.loadRowBody());
  applyDefaults(body, sample);
  return JSON.stringify(body);
}

/** The body's keys in vLLM-Omni's order, up to the row's own (a row's keys loaded at send time and the defaults follow). */
function bodyObject(config: RunConfig, sample: SampleRequest, messages: unknown[]): Record<string, unknown> {
  const body: Record<string, unknown> = {
    model: config.target.servedModelName || config.target.model,
    messages,
    temperature: 0,
    max_tokens: sample.outputLen,
    stream: true,
    stream_options: { include_usage: true, continuous_usage_stats: true },
  };
  if (config.workload.ignoreEos) body.ignore_eos = true;
  if (config.workload.extraBody) Object.assign(body, config.workload.extraBody);
  if (requestsStageMetrics(config) && !('return_stage_metrics' in body)) body.return_stage_metrics = true;
  if (sample.rowBody) Object.assign(body, sample.rowBody);
  return body;
}

function applyDefaults(body: Record<string, unknown>, sample: SampleRequest): void {
  if (sample.bodyDefaults) {
    for (const [k, v] of Object.entries(sample.bodyDefaults)) if (!(k in body)) body[k] = v;
  }
}

/**
 * A body serialised once with a marker where the prompt goes, cut there: a
 * request's body is then the head, the prompt's bytes and the tail copied into
 * one buffer, with no object built and no prompt string serialised per request
 * (docs/design.md#request-body). The same bytes JSON.stringify gives, since the
 * prompt's bytes need no escaping. Cached per run config and `max_tokens`
 * (the only key that varies between a random dataset's samples); null when
 * `--extra-body` replaces the messages (no single marker in the text).
 */
interface Template {
  head: Buffer;
  tail: Buffer;
  defaults: SampleRequest['bodyDefaults'];
}
const MARKER = '\u0000stallscope-prompt\u0000';
const MARKER_JSON = JSON.stringify(MARKER).slice(1, -1);
const templates = new WeakMap<RunConfig, Map<number, Template | null>>();

function template(
  config: RunConfig,
  sample: SampleRequest,
  messagesWith: (text: string) => unknown[],
): Template | null {
  let byLen = templates.get(config);
  if (!byLen) templates.set(config, (byLen = new Map<number, Template | null>()));
  const cached = byLen.get(sample.outputLen);
  if (cached !== undefined && (cached === null || cached.defaults === sample.bodyDefaults)) return cached;
  const body = bodyObject(config, sample, messagesWith(MARKER));
  applyDefaults(body, sample);
  const json = JSON.stringify(body);
  const at = json.indexOf(MARKER_JSON);
  const t =
    at < 0 || json.indexOf(MARKER_JSON, at + 1) >= 0
      ? null
      : {
          head: Buffer.from(json.slice(0, at)),
          tail: Buffer.from(json.slice(at + MARKER_JSON.length)),
          defaults: sample.bodyDefaults,
        };
  byLen.set(sample.outputLen, t);
  return t;
}

/**
 * vLLM-Omni's should_request_stage_metrics: its main() adds
 * `return_stage_metrics: true` to the extra body for --print-stage, and for
 * the openai-chat-omni backend when tpot or itl is a percentile metric (as by
 * default; current upstream) or when the modalities include image (its image
 * backends always ask; stallscope has none). An explicit value in
 * --extra-body is kept.
 */
export function requestsStageMetrics(config: RunConfig): boolean {
  if (config.workload.printStage) return true;
  if (config.target.backend !== 'openai-chat-omni') return false;
  if (config.output.percentileMetrics.some((m) => m === 'tpot' || m === 'itl')) return true;
  const modalities = config.workload.extraBody?.modalities;
  return Array.isArray(modalities) && modalities.includes('image');
}

/** Headers for one request; `x-request-id` last so a --header cannot replace it. */
export function buildHeaders(config: RunConfig, requestId: string): Record<string, string> {
  const h: Record<string, string> = { 'content-type': 'application/json' };
  if (config.target.apiKey) h.authorization = `Bearer ${config.target.apiKey}`;
  if (config.target.headers) for (const [k, v] of Object.entries(config.target.headers)) h[k.toLowerCase()] = v;
  h['x-request-id'] = requestId;
  return h;
}

/** Default request-id prefix: `<runId>-`. */
export function requestIdPrefix(config: RunConfig): string {
  return config.target.requestIdPrefix ?? `${config.runId}-`;
}
