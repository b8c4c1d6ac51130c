/**
 * One undici Agent per run. undici's own headers/body/connect timeouts are
 * disabled (0): they default to 300 s / 300 s / 10 s and would otherwise
 * classify a stall before our structural timers do.
 */
import { Agent } from 'undici';

/** `connect`: TLS options for https targets (see tls.ts); undefined keeps Node's defaults. */
export function createDispatcher(maxConcurrency: number | null, connect?: Agent.Options['connect']): Agent {
  return new Agent({
    connect,
    connections: maxConcurrency ?? null,
    headersTimeout: 0,
    bodyTimeout: 0,
    connectTimeout: 0,
    keepAliveTimeout: 30_000,
    pipelining: 1,
  });
}
