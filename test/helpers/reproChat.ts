/** Helpers for tests that talk HTTP to a running reproduction server. */
import { StreamParser } from '#server/engine/transport/reading/streamParser.ts';
import { newRecord, type RequestRecord } from '#server/engine/records/record.ts';
import { MODEL } from './code2wav.ts';

export function chatBody(over: Record<string, unknown> = {}) {
  return {
    model: MODEL,
    messages: [{ role: 'user', content: 'say this sentence back to me please' }],
    temperature: 0,
    stream: true,
    stream_options: { include_usage: true, continuous_usage_stats: true },
    ...over,
  };
}

export async function post(url: string, body: unknown, headers: Record<string, string> = {}, signal?: AbortSignal) {
  return fetch(`${url}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
    signal,
  });
}

/** Streams one request through the benchmark engine's parser; returns its record and the raw events. */
export async function streamThroughParser(
  url: string,
  body: unknown,
  requestId: string,
): Promise<{ record: RequestRecord; events: any[] }> {
  const record = newRecord(1, performance.now() / 1000);
  // openai-chat-omni's reading: the stage fields are kept for request_stage_metrics.
  const parser = new StreamParser(record, { now: () => performance.now() / 1000, omniStageMetrics: true });
  const res = await post(url, body, { 'x-request-id': requestId });
  const raw: string[] = [];
  const dec = new TextDecoder();
  for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
    raw.push(dec.decode(chunk, { stream: true }));
    parser.push(chunk);
  }
  parser.end();
  const events = raw
    .join('')
    .split('\n\n')
    .filter((m) => m.startsWith('data: ') && m !== 'data: [DONE]')
    .map((m) => JSON.parse(m.slice(6)));
  return { record, events };
}

export const audioPayloads = (events: any[]) =>
  events.filter((e) => e.modality === 'audio').map((e) => e.choices[0].delta.content as string);
