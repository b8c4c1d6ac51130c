/**
 * Which scope each route needs (docs/design.md#tokens). Reporting (a CLI's
 * `--report-to`, a target's telemetry, a result file's import) needs `report`;
 * reading anything (REST, the live stream, /metrics, exports, the web UI)
 * needs `view`; everything else — starting, cancelling, deleting, pinning
 * runs, managing tokens — needs `admin`. Only `/api/health` needs nothing;
 * `/api/session` (which scope am I?) needs a valid token of any scope.
 */
import type { Need } from '../../../shared/protocol/tokens.ts';

const PUBLIC = new Set(['GET /api/health', 'HEAD /api/health']);

const REPORT = new Set([
  'POST /api/runs/external',
  'POST /api/runs/:id/events',
  'POST /api/ingest',
  'POST /api/import',
]);

const READS = new Set(['GET', 'HEAD']);

/** Routes any valid token may call, whatever its scope: the web UI asks which scope it runs with. */
const ANY_TOKEN = new Set(['GET /api/session', 'HEAD /api/session']);

export const anyTokenRoute = (method: string, route: string | undefined): boolean =>
  ANY_TOKEN.has(`${method} ${route ?? ''}`);

/** `route` is the matched route's pattern (`/api/runs/:id`), undefined when none matched. */
export function needOf(method: string, route: string | undefined): Need {
  const key = `${method} ${route ?? ''}`;
  if (PUBLIC.has(key)) return 'public';
  if (REPORT.has(key)) return 'report';
  if (route?.startsWith('/api/tokens')) return 'admin';
  return READS.has(method) ? 'view' : 'admin';
}
