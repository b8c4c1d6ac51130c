/**
 * Reads the target's identity once at the start of a run: `GET /v1/models`
 * and `GET /version` side by side, each on a connection of its own (the
 * run's connections and their accounting stay the benchmark's). Bounded: one
 * deadline for both (2 s by default) and a cap on each body (64 KiB), so a
 * slow or odd server costs the run at most the bound, and never fails it —
 * what could not be read is said in `notes` (docs/design.md#server-identity).
 * Node's own HTTP client (transport/simpleClient.ts): two GETs need no pool, and loading undici
 * for them cost every run CPU before its first request (docs/performance.md#undici-start).
 */
import { MAX_IDENTITY_MODELS, type ServerIdentity } from '../../../shared/runInfo/serverIdentity.ts';
import type { RunConfig } from '../../../shared/config/runConfig.ts';
import { getOnOwnConnection, readCapped, tlsOptions, type IncomingMessage } from '../transport/simpleClient.ts';

export const IDENTITY_TIMEOUT_MS = 2000;
export const IDENTITY_MAX_BYTES = 64 * 1024;

export interface IdentityOptions {
  timeoutMs?: number;
  maxBytes?: number;
}

type Fetched = { ok: true; body: unknown } | { ok: false; note: string };

/** The body of `GET url` parsed as JSON, or why not (status, size, time, parse). */
async function getJson(
  base: string,
  path: string,
  headers: Record<string, string>,
  signal: AbortSignal,
  max: number,
  tls: ReturnType<typeof tlsOptions>,
): Promise<Fetched> {
  let res: IncomingMessage | null = null;
  try {
    res = await getOnOwnConnection(new URL(`${base}${path}`), headers, signal, tls);
    if (res.statusCode !== 200) return { ok: false, note: `${path}: HTTP ${res.statusCode}` };
    const { bytes, over } = await readCapped(res, max);
    if (over) return { ok: false, note: `${path}: the body is over ${max} bytes` };
    return { ok: true, body: JSON.parse(bytes.toString('utf8')) as unknown };
  } catch (e) {
    const why = signal.aborted ? 'no answer in time' : (e as Error).message;
    return { ok: false, note: `${path}: ${why}`.slice(0, 512) };
  } finally {
    // Whatever was not read (an error page, the rest of a capped body) is not waited for: its connection closes.
    res?.destroy();
  }
}

const text = (v: unknown): string | null => (typeof v === 'string' && v.trim() ? v.trim().slice(0, 256) : null);

function modelIds(f: Fetched): { models: string[] | null; note?: string } {
  if (!f.ok) return { models: null, note: f.note };
  const data = (f.body as { data?: unknown } | null)?.data;
  if (!Array.isArray(data)) return { models: null, note: '/v1/models: no data list in the answer' };
  const ids = data.map((m) => text((m as { id?: unknown } | null)?.id)).filter((x): x is string => x !== null);
  return { models: ids.slice(0, MAX_IDENTITY_MODELS) };
}

function versionOf(f: Fetched): { version: string | null; note?: string } {
  if (!f.ok) return { version: null, note: f.note };
  const v = text((f.body as { version?: unknown } | null)?.version);
  return v ? { version: v } : { version: null, note: '/version: no version in the answer' };
}

/** The target's identity; never throws, never takes longer than `timeoutMs` (plus closing its own sockets). */
export async function readServerIdentity(config: RunConfig, opts: IdentityOptions = {}): Promise<ServerIdentity> {
  const timeoutMs = opts.timeoutMs ?? IDENTITY_TIMEOUT_MS;
  const max = opts.maxBytes ?? IDENTITY_MAX_BYTES;
  const headers: Record<string, string> = { accept: 'application/json' };
  if (config.target.apiKey) headers.authorization = `Bearer ${config.target.apiKey}`;
  for (const [k, v] of Object.entries(config.target.headers ?? {})) headers[k.toLowerCase()] = v;
  const tls = tlsOptions(config.target);
  const ctrl = new AbortController();
  const timer = setTimeout(() => ctrl.abort(), timeoutMs);
  try {
    const [models, version] = await Promise.all([
      getJson(config.target.baseUrl, '/v1/models', headers, ctrl.signal, max, tls).then(modelIds),
      getJson(config.target.baseUrl, '/version', headers, ctrl.signal, max, tls).then(versionOf),
    ]);
    const notes = [models.note, version.note].filter((n): n is string => n !== undefined);
    return { models: models.models, version: version.version, notes };
  } finally {
    clearTimeout(timer);
  }
}
