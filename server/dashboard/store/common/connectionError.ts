/**
 * "The database cannot be reached now" as opposed to "this write is wrong": the first is retried (the writer keeps
 * its batch) or answered 503 `STORE_UNAVAILABLE` with Retry-After (plugins/errors.ts), never 500. Recognised from
 * the error's shape only (no driver import), so the HTTP layer and the token cache can ask too.
 */
import { StallscopeError } from '../../../../shared/errors.ts';

export function isConnectionError(e: unknown): boolean {
  if (e === null || typeof e !== 'object') return false;
  const err = e as { code?: unknown; message?: unknown };
  const code = typeof err.code === 'string' ? err.code : '';
  if (/^(08|57P)/.test(code) || code === '53300') return true; // connection exceptions, shutdown, too many clients
  if (['ECONNREFUSED', 'ECONNRESET', 'ENOTFOUND', 'ETIMEDOUT', 'EPIPE', 'ENOENT', 'EHOSTUNREACH'].includes(code))
    return true;
  const m = typeof err.message === 'string' ? err.message : '';
  return /Connection terminated|connection timeout|Client has encountered a connection error|not queryable|Query read timeout/i.test(
    m,
  );
}

/** A connection error, or one the store already turned into STORE_UNAVAILABLE. */
export function isStoreUnavailable(e: unknown): boolean {
  return (e instanceof StallscopeError && e.code === 'STORE_UNAVAILABLE') || isConnectionError(e);
}
