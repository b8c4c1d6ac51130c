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
 * - When a token is configured (required when bound to a non-loopback
 *   address), every request must carry it: `Authorization: Bearer`, the
 *   `x-stallscope-token` header, `?token=` (which also sets a cookie so the
 *   web UI's own requests carry it), or that cookie. Compared in constant time.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { networkInterfaces, hostname } from 'node:os';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { StallscopeError } from '../../../shared/errors.ts';

export interface SecurityOptions {
  /** The address the server binds. */
  bindHost: string;
  /** Extra names accepted in Host/Origin (e.g. a reverse proxy's name). */
  allowedHosts?: string[];
  token?: string | null;
}

const LOOPBACK_NAMES = ['localhost', '127.0.0.1', '::1', '[::1]'];
const COOKIE = 'stallscope_token';

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

const digest = (s: string) => createHash('sha256').update(s).digest();

/** Constant-time token comparison (digests have equal length whatever the input). */
export function tokenMatches(given: string | undefined, expected: string): boolean {
  return given !== undefined && timingSafeEqual(digest(given), digest(expected));
}

function cookieToken(req: FastifyRequest): string | undefined {
  const c = req.headers.cookie;
  if (!c) return undefined;
  for (const part of c.split(';')) {
    const [k, ...v] = part.trim().split('=');
    if (k === COOKIE) return decodeURIComponent(v.join('='));
  }
  return undefined;
}

function presentedToken(req: FastifyRequest): { token?: string; viaQuery: boolean } {
  const auth = req.headers.authorization;
  if (auth?.startsWith('Bearer ')) return { token: auth.slice(7), viaQuery: false };
  const h = req.headers['x-stallscope-token'];
  if (typeof h === 'string') return { token: h, viaQuery: false };
  const q = (req.query as Record<string, unknown> | undefined)?.token;
  if (typeof q === 'string') return { token: q, viaQuery: true };
  return { token: cookieToken(req), viaQuery: false };
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
  const token = o.token ?? null;
  const listeningPort = (): string | null => {
    const a = app.server.address();
    return a !== null && typeof a === 'object' ? String(a.port) : null;
  };
  app.addHook('onRequest', async (req, reply) => {
    // On every reply, refusals included: set before the checks can throw.
    for (const [name, value] of SECURITY_HEADERS) reply.header(name, value);
    try {
      check(req, reply);
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
  function check(req: FastifyRequest, reply: FastifyReply): void {
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
    if (token !== null) {
      const p = presentedToken(req);
      if (!tokenMatches(p.token, token)) throw new StallscopeError('API_UNAUTHORIZED');
      if (p.viaQuery) {
        reply.header('set-cookie', `${COOKIE}=${encodeURIComponent(token)}; Path=/; HttpOnly; SameSite=Strict`);
      }
    }
  }
}
