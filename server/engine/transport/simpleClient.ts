/**
 * The engine's one client off the hot path: what speaks HTTP only now and
 * then, on connections of its own (never the run's, which the stop sweeps) —
 * the Hub download (datasets/hub/), the recogniser's client (accuracy/), the
 * reporter (report/remote.ts), the liveness check (probes/liveness/) and the
 * server identity (run/serverIdentity.ts). Each caller keeps its own bounds
 * (deadlines, caps, retries); this module only says how it reaches the
 * network, so the engine's network stays in `transport/`.
 *
 * Two ways, as each caller needs:
 * - undici, loaded when first used (`lazyPool`, `loadUndici`): a plain
 *   `stallscope bench` never initialises undici, whose start costs CPU before
 *   the first request (docs/performance.md#undici-start);
 * - one `GET` on Node's own HTTP client (`getOnOwnConnection`), for a couple
 *   of GETs that need no pool (docs/performance.md#server-identity).
 */
import { request as httpGet, type IncomingMessage } from 'node:http';
import { request as httpsGet } from 'node:https';
import type * as Undici from 'undici';

export { readCapped } from './http/cappedBody.ts';
export { tlsOptions } from './http/tls.ts';

/** undici's types, for the callers that hold an agent or its `request`. */
export type { Agent, Dispatcher } from 'undici';
export type UndiciRequest = typeof Undici.request;
export type { IncomingMessage };

/** undici itself, loaded on the first call (the module cache keeps it after). */
export const loadUndici = (): Promise<typeof Undici> => import('undici');

export interface LazyPool {
  /** undici and the pool's agent, loaded and made on the first call. */
  get(): Promise<{ undici: typeof Undici; agent: Undici.Agent }>;
  /** Closes the agent if one was made. */
  close(): Promise<void>;
}

/** A connection pool of undici's, made with undici on its first use. */
export function lazyPool(options: Undici.Agent.Options): LazyPool {
  let pool: Promise<{ undici: typeof Undici; agent: Undici.Agent }> | null = null;
  return {
    get: () => (pool ??= import('undici').then((undici) => ({ undici, agent: new undici.Agent(options) }))),
    close: async () => {
      if (pool) await (await pool).agent.destroy();
    },
  };
}

/** undici's fetch on a pool's agent (the recogniser's multipart upload needs fetch's FormData). */
export function fetchOn(
  undici: typeof Undici,
  agent: Undici.Agent,
  url: string,
  init: Omit<Undici.RequestInit, 'dispatcher'>,
): Promise<Undici.Response> {
  return undici.fetch(url, { ...init, dispatcher: agent });
}

/** `GET url` on a connection of its own (closed after the answer), aborted with `signal`. */
export function getOnOwnConnection(
  url: URL,
  headers: Record<string, string>,
  signal: AbortSignal,
  tls: { rejectUnauthorized: false } | undefined,
): Promise<IncomingMessage> {
  return new Promise((resolve, reject) => {
    const send = url.protocol === 'https:' ? httpsGet : httpGet;
    const req = send(url, { method: 'GET', headers, signal, agent: false, ...tls }, resolve);
    req.on('error', reject);
    req.end();
  });
}
