/**
 * Hash routes: `#/` runs, `#/new`, `#/runs/<id>`, `#/compare?ids=a,b`.
 * Hash routing needs no server fallback and survives reloads.
 */
import { useSyncExternalStore } from 'react';

export type Route =
  | { page: 'runs' }
  | { page: 'new' }
  | { page: 'run'; id: string; request?: number }
  | { page: 'compare'; ids: string[] }
  | { page: 'notFound'; path: string };

export function parseRoute(hash: string): Route {
  const h = hash.replace(/^#/, '') || '/';
  const [path, query = ''] = h.split('?');
  const q = new URLSearchParams(query);
  if (path === '/' || path === '/runs') return { page: 'runs' };
  if (path === '/new') return { page: 'new' };
  const run = /^\/runs\/([^/]+)$/.exec(path);
  if (run) {
    const req = q.get('request');
    return {
      page: 'run',
      id: decodeURIComponent(run[1]),
      ...(req !== null && /^\d+$/.test(req) ? { request: Number(req) } : {}),
    };
  }
  if (path === '/compare') {
    // Split the raw value before decoding, so an id holding an encoded comma stays one id.
    const raw = /(?:^|&)ids=([^&]*)/.exec(query)?.[1] ?? '';
    return { page: 'compare', ids: raw.split(',').filter(Boolean).map(decodeURIComponent) };
  }
  return { page: 'notFound', path };
}

export function href(r: Route): string {
  switch (r.page) {
    case 'runs':
      return '#/';
    case 'new':
      return '#/new';
    case 'run':
      return `#/runs/${encodeURIComponent(r.id)}${r.request !== undefined ? `?request=${r.request}` : ''}`;
    case 'compare':
      return `#/compare?ids=${r.ids.map(encodeURIComponent).join(',')}`;
    case 'notFound':
      return `#${r.path}`;
  }
}

export function navigate(r: Route): void {
  window.location.hash = href(r);
}

const subscribe = (cb: () => void) => {
  window.addEventListener('hashchange', cb);
  return () => window.removeEventListener('hashchange', cb);
};

export function useRoute(): Route {
  const hash = useSyncExternalStore(subscribe, () => window.location.hash);
  return parseRoute(hash);
}
