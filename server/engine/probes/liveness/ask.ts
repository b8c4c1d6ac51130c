/**
 * The three questions of the liveness check (docs/design.md#liveness-at-stall),
 * asked together on a connection pool of their own (never the run's, which
 * the stop sweeps), each bounded: `GET /health`, `GET /v1/models` and one
 * short text-only chat request (`modalities: ["text"]`, 4 tokens, not
 * streamed). Each reply is read up to 64 KiB; what answered, its status and
 * the milliseconds to the whole reply (or to giving up) are recorded.
 * undici is loaded when asked, not with the probe: the run manager builds
 * the probe before the engine it hands it to, and should not wait on it.
 */
import type { LivenessProbe, LivenessProbeName } from '../../../../shared/stalls/liveness.ts';
import { loadUndici, readCapped, type Agent, type UndiciRequest as Request } from '../../transport/simpleClient.ts';

/** Bytes of a reply read before the rest is dropped. */
const REPLY_CAP = 64 * 1024;

export interface LivenessTarget {
  /** The server's origin and path prefix, e.g. `http://127.0.0.1:8000`. */
  baseUrl: string;
  /** The run's chat endpoint, e.g. `/v1/chat/completions`. */
  endpoint: string;
  /** The model name the run's requests send. */
  model: string;
  /** The run's headers (authorization, --header), without its request id. */
  headers: Record<string, string>;
  /** `--insecure`: https without certificate checks. */
  insecure: boolean;
}

interface Question {
  name: LivenessProbeName;
  method: 'GET' | 'POST';
  path: string;
  body?: string;
  /** A short excerpt of a 2xx reply. */
  excerpt: (text: string) => string | null;
}

function questions(t: LivenessTarget): Question[] {
  const body = JSON.stringify({
    model: t.model,
    messages: [{ role: 'user', content: 'Reply with one word: ok.' }],
    modalities: ['text'],
    max_tokens: 4,
    temperature: 0,
    stream: false,
  });
  return [
    { name: 'health', method: 'GET', path: '/health', excerpt: (s) => cut(s) },
    { name: 'models', method: 'GET', path: '/v1/models', excerpt: modelIds },
    { name: 'text', method: 'POST', path: t.endpoint, body, excerpt: answerText },
  ];
}

const cut = (s: string): string | null => (s.trim() ? s.trim().slice(0, 200) : null);

function modelIds(s: string): string | null {
  try {
    const ids = (JSON.parse(s) as { data?: { id?: unknown }[] }).data?.map((m) => String(m.id));
    return ids?.length ? cut(ids.join(', ')) : cut(s);
  } catch {
    return cut(s);
  }
}

function answerText(s: string): string | null {
  try {
    const content = (JSON.parse(s) as { choices?: { message?: { content?: unknown } }[] }).choices?.[0]?.message
      ?.content;
    return typeof content === 'string' ? cut(content) || '(empty text)' : cut(s);
  } catch {
    return cut(s);
  }
}

/** Asks the three questions together; resolves within `boundMs` (plus a turn), never rejects. */
export async function askLiveness(t: LivenessTarget, boundMs: number, runId: string): Promise<LivenessProbe[]> {
  const { Agent, request } = await loadUndici();
  const agent = new Agent({
    connect: t.insecure ? { rejectUnauthorized: false } : undefined,
    keepAliveTimeout: 1,
    headersTimeout: 0,
    bodyTimeout: 0,
  });
  try {
    return await Promise.all(questions(t).map((q) => ask(request, agent, t, q, boundMs, runId)));
  } finally {
    // Whatever is still open (a reply that never came) is torn down now, not left to the run's exit.
    void agent.destroy().catch(() => undefined);
  }
}

async function ask(
  request: Request,
  agent: Agent,
  t: LivenessTarget,
  q: Question,
  boundMs: number,
  runId: string,
): Promise<LivenessProbe> {
  const base = { name: q.name, method: q.method, path: q.path } as const;
  const ctrl = new AbortController();
  const timer = setTimeout(() => ctrl.abort(), boundMs);
  const t0 = performance.now();
  let status: number | null = null;
  try {
    const headers: Record<string, string> = { ...t.headers, 'x-request-id': `${runId}-liveness-${q.name}` };
    if (q.body) headers['content-type'] = 'application/json';
    const res = await request(`${t.baseUrl}${q.path}`, {
      method: q.method,
      headers,
      body: q.body,
      dispatcher: agent,
      signal: ctrl.signal,
    });
    status = res.statusCode;
    const text = (await readCapped(res.body, REPLY_CAP)).bytes.toString('utf8');
    const ms = performance.now() - t0;
    const ok = status >= 200 && status < 300;
    return {
      ...base,
      outcome: ok ? 'answered' : 'failed',
      status,
      ms,
      error: ok ? null : `HTTP ${status}`,
      detail: ok ? q.excerpt(text) : cut(text),
    };
  } catch (e) {
    const ms = performance.now() - t0;
    if (ctrl.signal.aborted)
      return { ...base, outcome: 'timed_out', status, ms, error: `no reply within ${boundMs} ms`, detail: null };
    return { ...base, outcome: 'failed', status, ms, error: (e as Error).message.slice(0, 300), detail: null };
  } finally {
    clearTimeout(timer);
  }
}
