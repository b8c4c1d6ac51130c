/**
 * HTTP mapping of shared/errors.ts: every error reply is
 * `{code, message, field?, issues?}` with the status from the one table.
 * Fastify's own errors (validation, body too large, bad JSON) are mapped to
 * the same shape so clients handle one format.
 */
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ERRORS, StallscopeError } from '../../../shared/errors.ts';
import { pointerToField, type SpecIssue } from '../../../shared/config/runSpec.ts';
import type { ErrorReply } from '../../../shared/protocol/apiSchemas.ts';
import { isConnectionError } from '../store/common/connectionError.ts';

/** Seconds a client waits before retrying a request the database could not answer (503 STORE_UNAVAILABLE). */
export const STORE_RETRY_AFTER_S = 1;

/** A 400 carrying every issue of a spec; `field` names the first error, and the code is its own (CONFIG_INVALID unless it says). */
export class SpecError extends StallscopeError {
  constructor(readonly issues: SpecIssue[]) {
    const first = issues.find((i) => i.severity === 'error') ?? issues[0];
    super(
      first?.code ?? 'CONFIG_INVALID',
      first ? `${first.field || 'spec'}: ${first.message}` : undefined,
      first?.field,
    );
  }
}

export function errorReply(err: unknown): { status: number; body: ErrorReply } {
  if (err instanceof SpecError) return { status: err.status, body: { ...err.toJSON(), issues: err.issues } };
  if (err instanceof StallscopeError) return { status: err.status, body: err.toJSON() };
  // A query that lost its database (a dropped connection, a restarting server) is "retry later", not a bug.
  if (isConnectionError(err)) {
    const detail = (err as Error).message.split('\n')[0];
    return { status: 503, body: new StallscopeError('STORE_UNAVAILABLE', detail).toJSON() };
  }
  const fe = err as FastifyError & {
    validation?: { instancePath?: string; message?: string; params?: { requiredProperties?: string[] } }[];
  };
  if (fe.validation) {
    const v = fe.validation[0] ?? {};
    const missing = v.params?.requiredProperties?.[0];
    const field = [pointerToField(v.instancePath ?? ''), missing].filter(Boolean).join('.');
    const where = fe.validationContext ?? 'request';
    return {
      status: 400,
      body: {
        code: 'API_BAD_REQUEST',
        message: `${where}${field ? `.${field}` : ''} ${missing ? 'is required' : (v.message ?? 'is invalid')}`,
        ...(field ? { field } : {}),
      },
    };
  }
  if (fe.code === 'FST_ERR_CTP_BODY_TOO_LARGE') {
    return { status: 413, body: { code: 'API_PAYLOAD_TOO_LARGE', message: ERRORS.API_PAYLOAD_TOO_LARGE.message } };
  }
  if (typeof fe.statusCode === 'number' && fe.statusCode >= 400 && fe.statusCode < 500) {
    return { status: fe.statusCode, body: { code: 'API_BAD_REQUEST', message: fe.message } };
  }
  return { status: 500, body: { code: 'INTERNAL', message: ERRORS.INTERNAL.message } };
}

/** `fallback` may answer a 404 first (the web UI's single-page fallback); it returns null to decline. */
export function installErrorHandler(
  app: FastifyInstance,
  fallback?: (req: FastifyRequest, reply: FastifyReply) => FastifyReply | null,
  /** Where a 500's cause goes (stderr unless told); the client only sees "internal error". */
  logFailure: (line: string) => void = (line) => process.stderr.write(`${line}\n`),
): void {
  app.setErrorHandler((err, req, reply) => {
    const { status, body } = errorReply(err);
    // A database away is said once by the store (stderr, /api/health), not once per request it refuses.
    if (status >= 500 && body.code !== 'STORE_UNAVAILABLE') {
      req.log.error({ err }, 'request failed');
      const cause = err instanceof Error ? (err.stack ?? err.message) : String(err);
      logFailure(`stallscope: ${req.method} ${req.url.split('?')[0]} failed (${status}): ${cause}`);
    }
    if (body.code === 'STORE_UNAVAILABLE') reply.header('retry-after', String(STORE_RETRY_AFTER_S));
    return reply.status(status).send(body);
  });
  app.setNotFoundHandler((req, reply) => {
    const handled = fallback?.(req, reply);
    if (handled) return handled;
    return reply
      .status(404)
      .send({ code: 'API_NOT_FOUND', message: `no route ${req.method} ${req.url.split('?')[0]}` });
  });
}
