/**
 * One undici Agent per run. undici's own headers/body/connect timeouts are
 * disabled (0): they default to 300 s / 300 s / 10 s and would otherwise
 * classify a stall before our structural timers do.
 */
import { Agent } from 'undici';

export function createDispatcher(maxConcurrency: number | null): Agent {
  return new Agent({
    connections: maxConcurrency ?? null,
    headersTimeout: 0,
    bodyTimeout: 0,
    connectTimeout: 0,
    keepAliveTimeout: 30_000,
    pipelining: 1,
  });
}
