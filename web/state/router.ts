/**
 * Hash routes: `#/` runs (`?verdict=&q=&meta=&offset=`: the list's filters,
 * so a filtered view can be shared and Back works), `#/new` (`?preset=`: the
 * preset or `custom`), `#/runs/<id>` (`?req=5` opens request #5; `?request=5`
 * is kept as an alias; `?stall=w0-op3` brings that stall report into view; `?reqs=5-8` shows only requests #5–#8,
 * e.g. a stalled batch), `#/compare?ids=a,b`, `#/stalls` (`?meta=&since=&until=`: the stall board's filters; `groups=`: how many it shows).
 * Hash routing needs no server fallback and survives reloads.
 */
import { formatRanges, parseRanges } from '../../shared/runView/requestRanges.ts';

/** The runs list's filters, as they appear in the URL (absent = not filtered). */
export interface RunsQuery {
  verdict?: string;
  /** Free text: id, label, model, target. */
  q?: string;
  /** `key=value` pairs, space separated, as typed. */
  meta?: string;
  offset?: number;
}

/** The stall board's filters, as they appear in the URL (absent = not filtered). */
export interface StallsQuery {
  /** `key=value` pairs, space separated, as typed. */
  meta?: string;
  /** Dates (`2026-04-01`) the runs happened from / before. */
  since?: string;
  until?: string;
  /** One fingerprint's groups (a stall card's "where else it occurred"). */
  fp?: string;
  /** How many groups to show, the most frequent first (absent: the board's default); digits, as in the URL. */
  groups?: string;
}

export type Route =
  | ({ page: 'runs' } & RunsQuery)
  | { page: 'new'; preset?: string }
  | { page: 'run'; id: string; request?: number; stall?: string; only?: number[] }
  | ({ page: 'stalls' } & StallsQuery)
  | { page: 'compare'; ids: string[] }
  | { page: 'notFound'; path: string };

export function parseRoute(hash: string): Route {
  const h = hash.replace(/^#/, '') || '/';
  const [path, query = ''] = h.split('?');
  const q = new URLSearchParams(query);
  if (path === '/' || path === '/runs') {
    const offset = q.get('offset');
    return {
      page: 'runs',
      ...(q.get('verdict') ? { verdict: q.get('verdict')! } : {}),
      ...(q.get('q') ? { q: q.get('q')! } : {}),
      ...(q.get('meta') ? { meta: q.get('meta')! } : {}),
      ...(offset && /^\d+$/.test(offset) && offset !== '0' ? { offset: Number(offset) } : {}),
    };
  }
  if (path === '/stalls') {
    const pick = (k: keyof StallsQuery) => (q.get(k) ? { [k]: q.get(k)! } : {});
    return {
      page: 'stalls',
      ...pick('meta'),
      ...pick('since'),
      ...pick('until'),
      ...pick('fp'),
      ...(/^\d+$/.test(q.get('groups') ?? '') ? { groups: q.get('groups')! } : {}),
    };
  }
  if (path === '/new') return q.get('preset') ? { page: 'new', preset: q.get('preset')! } : { page: 'new' };
  const run = /^\/runs\/([^/]+)$/.exec(path);
  if (run) {
    const req = q.get('req') ?? q.get('request');
    const only = parseRanges(q.get('reqs') ?? '');
    return {
      page: 'run',
      id: decodeURIComponent(run[1]),
      ...(req !== null && /^\d+$/.test(req) ? { request: Number(req) } : {}),
      ...(q.get('stall') ? { stall: q.get('stall')! } : {}),
      ...(only && only.length ? { only } : {}),
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
    case 'runs': {
      const q = new URLSearchParams();
      if (r.verdict) q.set('verdict', r.verdict);
      if (r.q) q.set('q', r.q);
      if (r.meta) q.set('meta', r.meta);
      if (r.offset) q.set('offset', String(r.offset));
      return q.size ? `#/?${q}` : '#/';
    }
    case 'new':
      return r.preset ? `#/new?preset=${encodeURIComponent(r.preset)}` : '#/new';
    case 'run': {
      // Built by hand: URLSearchParams would write the range's commas as %2C.
      const q = [
        ...(r.request !== undefined ? [`req=${r.request}`] : []),
        ...(r.stall ? [`stall=${encodeURIComponent(r.stall)}`] : []),
        ...(r.only?.length ? [`reqs=${formatRanges(r.only)}`] : []),
      ];
      return `#/runs/${encodeURIComponent(r.id)}${q.length ? `?${q.join('&')}` : ''}`;
    }
    case 'stalls': {
      const q = new URLSearchParams();
      for (const k of ['meta', 'since', 'until', 'fp', 'groups'] as const) if (r[k]) q.set(k, r[k]);
      return q.size ? `#/stalls?${q}` : '#/stalls';
    }
    case 'compare':
      return `#/compare?ids=${r.ids.map(encodeURIComponent).join(',')}`;
    case 'notFound':
      return `#${r.path}`;
  }
}

/** Tells route subscribers at once, not a task later as the browser's hashchange does. */
export const NAVIGATED = 'stallscope:navigated';

export function navigate(r: Route): void {
  window.location.hash = href(r);
  // The browser fires hashchange a task later. A control that navigates (a
  // preset radio) is controlled by the route: until React sees the new route
  // it puts the control back as it was, so the click seems lost for a moment.
  // Telling subscribers now re-renders within the same event.
  window.dispatchEvent(new Event(NAVIGATED));
}

/**
 * Change the URL without a history entry (arrowing through requests), and
 * tell route subscribers: a replaceState fires no hashchange, and a route
 * left stale makes the next link to the old URL look like no change.
 */
export function replaceRoute(r: Route): void {
  window.history.replaceState(null, '', href(r));
  window.dispatchEvent(new Event(NAVIGATED));
}
