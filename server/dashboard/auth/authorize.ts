/**
 * The token check of every request (docs/design.md#tokens), run by the
 * security hook after Host and Origin: the token presented — `Authorization:
 * Bearer`, the `x-stallscope-token` header, `?token=` (which also sets a
 * cookie so the web UI's own requests carry it), or that cookie — makes the
 * caller, whose scope must cover what the route needs. Missing, unknown or
 * revoked: 401 `API_UNAUTHORIZED`; a scope short of the route: 403
 * `API_FORBIDDEN_SCOPE`, as is a report token posting to a run another token
 * created. The request's caller is kept on it (`req.caller`).
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { StallscopeError } from '../../../shared/errors.ts';
import { scopeCovers } from '../../../shared/protocol/tokens.ts';
import { anyTokenRoute, needOf } from './scopes.ts';
import type { Caller, TokenService } from './tokens.ts';

declare module 'fastify' {
  interface FastifyRequest {
    /** Who made the request (set by the security hook; admin when the dashboard requires no token). */
    caller?: Caller;
  }
}

const COOKIE = 'stallscope_token';

function cookieToken(req: FastifyRequest): string | undefined {
  const c = req.headers.cookie;
  if (!c) return undefined;
  for (const part of c.split(';')) {
    const [k, ...v] = part.trim().split('=');
    if (k === COOKIE) {
      try {
        return decodeURIComponent(v.join('='));
      } catch {
        return undefined; // a malformed escape is no token, not a crash
      }
    }
  }
  return undefined;
}

function presentedToken(req: FastifyRequest): { token?: string; viaQuery: boolean } {
  const auth = req.headers.authorization;
  if (auth?.startsWith('Bearer ')) return { token: auth.slice(7).trim(), viaQuery: false };
  const h = req.headers['x-stallscope-token'];
  if (typeof h === 'string') return { token: h, viaQuery: false };
  const q = (req.query as Record<string, unknown> | undefined)?.token;
  if (typeof q === 'string') return { token: q, viaQuery: true };
  return { token: cookieToken(req), viaQuery: false };
}

export async function authorize(req: FastifyRequest, reply: FastifyReply, tokens: TokenService): Promise<void> {
  const need = needOf(req.method, req.routeOptions.url);
  if (!tokens.required) {
    req.caller = { scope: 'admin', tokenId: null };
    return;
  }
  if (need === 'public') return;
  const p = presentedToken(req);
  const caller = await tokens.authenticate(p.token);
  if (!anyTokenRoute(req.method, req.routeOptions.url) && !scopeCovers(caller.scope, need)) {
    throw new StallscopeError(
      'API_FORBIDDEN_SCOPE',
      `a ${caller.scope} token may not ${req.method} ${req.routeOptions.url ?? req.url.split('?')[0]} (it needs ${need})`,
    );
  }
  req.caller = caller;
  // The run a report is for, when the request names it: a report token feeds only its own runs.
  const runId =
    req.routeOptions.url === '/api/runs/:id/events'
      ? (req.params as { id?: unknown }).id
      : req.routeOptions.url === '/api/ingest'
        ? (req.query as { runId?: unknown }).runId
        : undefined;
  if (typeof runId === 'string') await tokens.checkReporter(runId, caller);
  if (p.viaQuery && p.token !== undefined) {
    reply.header('set-cookie', `${COOKIE}=${encodeURIComponent(p.token)}; Path=/; HttpOnly; SameSite=Strict`);
  }
}
