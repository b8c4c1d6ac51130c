/**
 * The scope of the token this page runs with (GET /api/session), asked once at start. The page was opened with
 * `?token=` or carries the cookie a `?token=` visit set; once the dashboard has answered (and so set the cookie),
 * the token is taken out of the address bar, so a copied or shared link never carries it.
 */
import type { SessionReply } from '../../shared/protocol/tokens.ts';

export type SessionState = { state: 'loading' } | { state: 'known'; session: SessionReply } | { state: 'failed' };

let current: SessionState = { state: 'loading' };
const listeners = new Set<() => void>();

export const getSession = (): SessionState => current;

export function subscribeSession(cb: () => void): () => void {
  listeners.add(cb);
  return () => listeners.delete(cb);
}

function set(s: SessionState): void {
  current = s;
  for (const l of listeners) l();
}

/** The address without its `token` parameter (other parameters and the hash route kept), or null if it has none. */
export function withoutToken(loc: Pick<Location, 'pathname' | 'search' | 'hash'>): string | null {
  const q = new URLSearchParams(loc.search);
  if (!q.has('token')) return null;
  q.delete('token');
  return `${loc.pathname}${q.size ? `?${q}` : ''}${loc.hash}`;
}

/** Asks the dashboard once; the `?token=` rides along so the cookie is set by this answer whatever the cache did. */
export async function loadSession(loc: Location, history: History): Promise<void> {
  const token = new URLSearchParams(loc.search).get('token');
  try {
    const res = await fetch(`/api/session${token === null ? '' : `?token=${encodeURIComponent(token)}`}`);
    if (!res.ok) return set({ state: 'failed' });
    set({ state: 'known', session: (await res.json()) as SessionReply });
    const clean = withoutToken(loc);
    if (clean !== null) history.replaceState(history.state, '', clean);
  } catch {
    set({ state: 'failed' });
  }
}
