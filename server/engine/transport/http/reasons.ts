/**
 * Abort reasons. Every abort in the engine carries one of these as the
 * AbortSignal's reason, so a failure is classified by its type — never by
 * parsing an error message.
 */
import type { TimeoutKind } from '../../../../shared/types.ts';

/** A structural timeout fired for one request attempt. */
export class TimeoutError extends Error {
  readonly kind: TimeoutKind;
  /** Seconds from the attempt's start until the timer fired. */
  readonly elapsedS: number;
  constructor(kind: TimeoutKind, limitS: number, elapsedS: number) {
    super(`${kind} timeout after ${formatS(limitS)} s`);
    this.name = 'TimeoutError';
    this.kind = kind;
    this.elapsedS = elapsedS;
    this.stack = plainStack(this);
  }
}

/** Why a request was aborted from outside (not by its own timer). */
export type CancelCause = 'breaker' | 'interrupted';

export class CancelledError extends Error {
  readonly cause: CancelCause;
  /** `message`: what stopped the run when it was a stop rule other than a timeout (docs/design.md#stop-rules). */
  constructor(cause: CancelCause, message?: string) {
    super(
      message ??
        (cause === 'breaker'
          ? 'cancelled by the fail-fast breaker after a timeout'
          : 'interrupted: the run was stopped'),
    );
    this.name = 'CancelledError';
    this.cause = cause;
    this.stack = plainStack(this);
  }
}

function formatS(s: number): string {
  return Number.isInteger(s) ? String(s) : s.toFixed(3).replace(/0+$/, '');
}

/**
 * These errors are verdicts, not bugs: where they were created says nothing.
 * A plain `stack` also spares the formatting Node does when a socket is
 * destroyed with one (with source maps on, the first format parses maps).
 */
function plainStack(e: Error): string {
  return `${e.name}: ${e.message}`;
}
