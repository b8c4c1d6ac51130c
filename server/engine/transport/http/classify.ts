/**
 * What kind of failure an attempt ended in, decided from the abort reason's
 * type or the error's `code` — never from message text.
 */
import { CancelledError, TimeoutError } from './reasons.ts';
import type { TimeoutKind } from '../../../../shared/types.ts';
import { certificateHint } from './tls.ts';

export type FailureClass =
  | { type: 'timeout'; kind: TimeoutKind; elapsedS: number }
  | { type: 'cancelled'; cause: 'breaker' | 'interrupted' }
  | { type: 'transport'; code: string }
  | { type: 'other' };

/**
 * Connection-level failures that vLLM-Omni retries (aiohttp.ClientError:
 * refused, reset, server disconnected, payload cut short).
 */
const TRANSPORT_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'EPIPE',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ETIMEDOUT', // the kernel's TCP timeout, not one of our structural kinds
  'HTTP_CLOSED_EARLY', // the server closed before its response ended (h1/socketExchange.ts)
]);

/**
 * `abortReason` is the attempt controller's reason when it was aborted; it
 * wins over the error the client surfaced (which may be a generic wrapper).
 */
export function classifyFailure(err: unknown, abortReason?: unknown): FailureClass {
  const reason = abortReason ?? err;
  if (reason instanceof TimeoutError) return { type: 'timeout', kind: reason.kind, elapsedS: reason.elapsedS };
  if (reason instanceof CancelledError) return { type: 'cancelled', cause: reason.cause };
  const code = errorCode(err);
  if (code && TRANSPORT_CODES.has(code)) return { type: 'transport', code };
  return { type: 'other' };
}

function errorCode(err: unknown): string | null {
  let e: unknown = err;
  // Node wraps system errors in AggregateError (a host's several addresses) or `cause` chains.
  for (let depth = 0; depth < 4 && e && typeof e === 'object'; depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string') return code;
    const agg = (e as { errors?: unknown[] }).errors;
    if (Array.isArray(agg) && agg.length > 0) {
      e = agg[0];
      continue;
    }
    e = (e as { cause?: unknown }).cause;
  }
  return null;
}

/** A one-line description for the request's `error` field. */
export function describeError(err: unknown): string {
  if (err instanceof Error) {
    const code = errorCode(err);
    const msg = err.message || err.name;
    const line = code && !msg.includes(code) ? `${code}: ${msg}` : msg;
    const hint = certificateHint(code);
    return hint ? `${line} (${hint})` : line;
  }
  return String(err);
}
