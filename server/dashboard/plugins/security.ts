/**
 * Request guards, run before routing on every request (WebSocket upgrades
 * included):
 * - Host must be a loopback name or a configured host (a DNS-rebinding page
 *   reaches us with its own name in Host).
 * - Origin, when present on a state-changing request or a WebSocket upgrade,
 *   must name an allowed host AND the port this request reached (the Host
 *   header's, as the browser sent it: a page on http://localhost:9999 is
 *   another origin and must not drive the local API), or the listening port,
 *   or an allowed `host:port`.
 * - When the dashboard has a token (required when bound to a non-loopback
 *   address), every request but `/api/health` must carry a token whose scope
 *   covers the route (server/dashboard/auth/authorize.ts).
 */
import { networkInterfaces, hostname } from 'node:os';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { StallscopeError } from '../../../shared/errors.ts';
import { authorize } from '../auth/authorize.ts';
import type { TokenService } from '../auth/tokens.ts';

export interface SecurityOptions {
  /** The address the server binds. */
  bindHost: string;
  /** Extra names accepted in Host/Origin (e.g. a reverse proxy's name). */
  allowedHosts?: string[];
  /** The tokens the dashboard accepts (none required when it has no admin token). */
  tokens: TokenService;
}

const LOOPBACK_NAMES = ['localhost', '127.0.0.1', '::1', '[::1]'];

export function isLoopback(host: string): boolean {
  return LOOPBACK_NAMES.includes(host) || /^127\.\d+\.\d+\.\d+$/.test(host) || host.endsWith('.localhost');
}

/** Hostnames (lowercase, no port) a request may name. */
export function allowedHostSet(o: SecurityOptions): Set<string> {
  const set = new Set(LOOPBACK_NAMES);
  const add = (h: string) => set.add(h.toLowerCase().replace(/^\[(.*)\]$/, '$1')).add(h.toLowerCase());
  if (o.bindHost === '0.0.0.0' || o.bindHost === '::') {
    // Bound everywhere: this machine's own names and addresses are legitimate.
    add(hostname());
    for (const list of Object.values(networkInterfaces())) for (const a of list ?? []) add(a.address);
  } else add(o.bindHost);
  for (const h of o.allowedHosts ?? []) add(h);
  return set;
}

/** `host:port`, `[v6]:port` → lowercase host without port or brackets. */
export function hostOf(hostHeader: string): string {
  const h = hostHeader.trim().toLowerCase();
  if (h.startsWith('[')) return h.slice(1, h.indexOf(']'));
  const colons = h.split(':').length - 1;
  return colons === 1 ? h.slice(0, h.indexOf(':')) : h;
}

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** `host:port` → the port; scheme default when absent. */
export function portOf(hostHeader: string, scheme: string): string {
  const m = /(?:^[^:]*|\])(?::(\d+))?$/.exec(hostHeader.trim());
  return m?.[1] ?? (scheme === 'https' ? '443' : '80');
}

/** Allowed `host:port` origins spelled out in allowedHosts (e.g. a proxy on another port). */
export function allowedOriginSet(o: SecurityOptions): Set<string> {
  const set = new Set<string>();
  for (const h of o.allowedHosts ?? []) {
    const hp = h.trim().toLowerCase();
    if ((/:\d+$/.test(hp) && hp.split(':').length === 2) || /^\[.*\]:\d+$/.test(hp))
      set.add(`${hostOf(hp)}:${portOf(hp, 'http')}`);
  }
  return set;
}

/**
 * The page is the built UI only: its own scripts, styles (React and Recharts
 * set inline style attributes), images and the same-origin API and WebSocket;
 * never framed. `nosniff`: a JSON or CSV reply is never run as a script or page.
 */
export const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data: blob:",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

const SECURITY_HEADERS: ReadonlyArray<readonly [string, string]> = [
  ['x-content-type-options', 'nosniff'],
  ['content-security-policy', CONTENT_SECURITY_POLICY],
  ['referrer-policy', 'no-referrer'],
];

export function installSecurity(app: FastifyInstance, o: SecurityOptions): void {
  const allowed = allowedHostSet(o);
  const allowedOrigins = allowedOriginSet(o);
  // Host names of `host:port` entries are acceptable hosts too.
  for (const hp of allowedOrigins) allowed.add(hp.slice(0, hp.lastIndexOf(':')));
  const listeningPort = (): string | null => {
    const a = app.server.address();
    return a !== null && typeof a === 'object' ? String(a.port) : null;
  };
  app.addHook('onRequest', async (req, reply) => {
    // On every reply, refusals included: set before the checks can throw.
    for (const [name, value] of SECURITY_HEADERS) reply.header(name, value);
    try {
      check(req);
      await authorize(req, reply, o.tokens);
    } catch (e) {
      // A refused WebSocket upgrade owns its raw socket (the websocket plugin's
      // own hooks, which would close it, never ran): close it once the refusal
      // is written, or it lingers and keeps app.close() waiting.
      if ((req.headers.upgrade ?? '').toLowerCase() === 'websocket') {
        const socket = req.raw.socket as { destroySoon?: () => void } | null;
        reply.raw.once('finish', () => socket?.destroySoon?.());
      }
      throw e;
    }
  });
  function check(req: FastifyRequest): void {
    const host = req.headers.host;
    if (!host || !allowed.has(hostOf(host))) {
      throw new StallscopeError('API_FORBIDDEN_ORIGIN', `Host '${host ?? ''}' is not this dashboard`);
    }
    const origin = req.headers.origin;
    const upgrade = (req.headers.upgrade ?? '').toLowerCase() === 'websocket';
    if (origin !== undefined && (upgrade || !SAFE_METHODS.has(req.method))) {
      let ok: boolean;
      try {
        const u = new URL(origin);
        const scheme = u.protocol.slice(0, -1);
        const oHost = hostOf(u.host);
        const oPort = u.port || (scheme === 'https' ? '443' : '80');
        ok =
          (scheme === 'http' || scheme === 'https') &&
          allowed.has(oHost) &&
          (oPort === portOf(host, req.protocol) ||
            oPort === listeningPort() ||
            allowedOrigins.has(`${oHost}:${oPort}`));
      } catch {
        ok = false; // 'null' (sandboxed frames, file://) and garbage are foreign
      }
      if (!ok)
        throw new StallscopeError(
          'API_FORBIDDEN_ORIGIN',
          `Origin '${origin}' may not ${upgrade ? 'open the live stream' : 'change state'}`,
        );
    }
  }
}
