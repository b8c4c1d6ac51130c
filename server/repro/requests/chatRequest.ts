/**
 * Validation of a `/v1/chat/completions` body into what the pipeline needs.
 * Malformed bodies get a 400 with an OpenAI-style error object, as vLLM does.
 */
export class OpenAIError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly type = 'BadRequestError',
    readonly param: string | null = null,
  ) {
    super(message);
  }
  toJSON() {
    return { error: { message: this.message, type: this.type, param: this.param, code: this.status } };
  }
}

export interface ChatRequest {
  model: string;
  stream: boolean;
  includeUsage: boolean;
  continuousUsage: boolean;
  wantText: boolean;
  wantAudio: boolean;
  maxTokens: number | null;
  maxNewTokens: number | null;
  ignoreEos: boolean;
  stageMetrics: boolean;
  /** Text of the last user message: what the thinker speaks back. */
  userText: string;
  promptTokens: number;
}

export const bad = (msg: string, param: string) => new OpenAIError(400, msg, 'BadRequestError', param);

function contentText(content: unknown, i: number): string {
  if (typeof content === 'string') return content;
  if (content === null || content === undefined) return '';
  if (!Array.isArray(content))
    throw bad(`messages[${i}].content must be a string or an array of parts`, `messages[${i}].content`);
  return content
    .map((p, j) => {
      if (!p || typeof p !== 'object' || typeof (p as { type?: unknown }).type !== 'string') {
        throw bad(`messages[${i}].content[${j}] must be an object with a type`, `messages[${i}].content`);
      }
      const part = p as { type: string; text?: unknown };
      return part.type === 'text' && typeof part.text === 'string' ? part.text : '';
    })
    .join(' ');
}

export function optInt(body: Record<string, unknown>, key: string): number | null {
  const v = body[key];
  if (v === undefined || v === null) return null;
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 1) throw bad(`${key} must be a positive integer`, key);
  return v;
}

/** A request body that is a JSON object naming the served model (every route's first check, as vLLM's). */
export function servedModelBody(body: unknown, servedModel: string): Record<string, unknown> & { model: string } {
  if (!body || typeof body !== 'object' || Array.isArray(body))
    throw bad('the request body must be a JSON object', 'body');
  const b = body as Record<string, unknown>;
  if (typeof b.model !== 'string' || b.model === '') throw bad('model is required', 'model');
  if (b.model !== servedModel)
    throw new OpenAIError(404, `The model \`${b.model}\` does not exist.`, 'NotFoundError', 'model');
  return { ...b, model: b.model };
}

export function parseChatRequest(body: unknown, servedModel: string): ChatRequest {
  const b = servedModelBody(body, servedModel);
  if (!Array.isArray(b.messages) || b.messages.length === 0)
    throw bad('messages must be a non-empty array', 'messages');
  let userText = '';
  let chars = 0;
  b.messages.forEach((m, i) => {
    if (!m || typeof m !== 'object') throw bad(`messages[${i}] must be an object`, `messages[${i}]`);
    const msg = m as { role?: unknown; content?: unknown };
    if (typeof msg.role !== 'string' || !['system', 'user', 'assistant', 'tool', 'developer'].includes(msg.role)) {
      throw bad(`messages[${i}].role is missing or unknown`, `messages[${i}].role`);
    }
    const text = contentText(msg.content, i);
    chars += text.length;
    if (msg.role === 'user') userText = text;
  });
  if (b.stream !== undefined && typeof b.stream !== 'boolean') throw bad('stream must be a boolean', 'stream');
  const so = b.stream_options;
  if (so !== undefined && so !== null && (typeof so !== 'object' || Array.isArray(so)))
    throw bad('stream_options must be an object', 'stream_options');
  const streamOptions = (so ?? {}) as { include_usage?: unknown; continuous_usage_stats?: unknown };
  let modalities = ['text', 'audio'];
  if (b.modalities !== undefined && b.modalities !== null) {
    if (
      !Array.isArray(b.modalities) ||
      b.modalities.length === 0 ||
      !b.modalities.every((m) => m === 'text' || m === 'audio')
    ) {
      throw bad("modalities must be a non-empty array of 'text' and 'audio'", 'modalities');
    }
    modalities = b.modalities as string[];
  }
  return {
    model: b.model,
    stream: b.stream === true,
    includeUsage: streamOptions.include_usage === true,
    continuousUsage: streamOptions.continuous_usage_stats === true,
    wantText: true,
    wantAudio: modalities.includes('audio'),
    maxTokens: optInt(b, 'max_tokens') ?? optInt(b, 'max_completion_tokens'),
    maxNewTokens: optInt(b, 'max_new_tokens'),
    ignoreEos: b.ignore_eos === true,
    stageMetrics: b.return_stage_metrics === true,
    userText,
    promptTokens: Math.max(1, Math.ceil(chars / 4) + 4 * b.messages.length),
  };
}
