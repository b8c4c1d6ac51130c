/**
 * The REST side of the dashboard API: commands and reads. Replies are typed
 * with the server's own reply schemas (shared/protocol/apiSchemas.ts); errors become
 * `ApiError` carrying the server's code, field and per-field issues.
 */
import type { ImportReply, RunDetail, RunListReply, RequestRow } from '../../shared/protocol/apiSchemas.ts';
import type { SeqEvent } from '../../shared/protocol/protocol.ts';
import type { Preset, RunSpec, SpecIssue } from '../../shared/config/runSpec.ts';
import type { StallBoardReply } from '../../shared/stalls/stallsApi.ts';
import type { RunFilter } from '../state/runFilter.ts';
import { takePrimed } from './primed.ts';

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly field?: string,
    readonly issues: SpecIssue[] = [],
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

async function call<T>(path: string, init?: RequestInit): Promise<T> {
  let res: Response;
  try {
    // A read the entry started before this page's code arrived (routePreload.ts) is this call's reply.
    res = await ((init === undefined ? takePrimed(path) : undefined) ?? fetch(path, init));
  } catch (e) {
    throw new ApiError(0, 'NETWORK', `cannot reach the dashboard server (${(e as Error).message})`);
  }
  const text = await res.text();
  let body: unknown;
  try {
    body = text ? (JSON.parse(text) as unknown) : null;
  } catch {
    body = null; // not JSON (a proxy's error page): the status line speaks for it
  }
  if (!res.ok) {
    const b = (body ?? {}) as { code?: string; message?: string; field?: string; issues?: SpecIssue[] };
    throw new ApiError(
      res.status,
      b.code ?? `HTTP_${res.status}`,
      b.message ?? (text || res.statusText),
      b.field,
      b.issues ?? [],
    );
  }
  return body as T;
}

const json = (method: string, body: unknown): RequestInit => ({
  method,
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify(body),
});

export type { RunFilter };

export const listRuns = (f: RunFilter = {}): Promise<RunListReply> => call(runsPath(f));

/** The path of `GET /api/runs` for a filter: what listRuns asks, and what the entry primes for the Runs page. */
export function runsPath(f: RunFilter = {}): string {
  const p = new URLSearchParams();
  if (f.q) p.set('q', f.q);
  if (f.verdict) p.set('verdict', f.verdict);
  if (f.status) p.set('status', f.status);
  for (const m of f.metadata ?? []) p.append('metadata', m);
  if (f.since) p.set('since', f.since);
  if (f.until) p.set('until', f.until);
  p.set('limit', String(f.limit ?? 25));
  p.set('offset', String(f.offset ?? 0));
  return `/api/runs?${p}`;
}

type StallsFilter = Pick<RunFilter, 'metadata' | 'since' | 'until'> & { fingerprint?: string; limit?: number };

/** The stall board (GET /api/stalls), filtered like the runs list by metadata pairs and time. */
export const getStalls = (f: StallsFilter = {}): Promise<StallBoardReply> => call(stallsPath(f));

export function stallsPath(f: StallsFilter = {}): string {
  const p = new URLSearchParams();
  for (const m of f.metadata ?? []) p.append('metadata', m);
  if (f.fingerprint) p.set('fingerprint', f.fingerprint);
  if (f.since) p.set('since', f.since);
  if (f.until) p.set('until', f.until);
  if (f.limit !== undefined) p.set('limit', String(f.limit));
  return `/api/stalls${p.size ? `?${p}` : ''}`;
}

export const runPath = (id: string) => `/api/runs/${encodeURIComponent(id)}`;
export const getRun = (id: string) => call<RunDetail>(runPath(id));

/** The run's bug report in Markdown (GET /api/runs/:id/report.md). */
export async function getBugReport(id: string): Promise<string> {
  const res = await fetch(`/api/runs/${encodeURIComponent(id)}/report.md`);
  if (!res.ok) throw new ApiError(res.status, `HTTP_${res.status}`, res.statusText);
  return res.text();
}

export const eventsPath = (id: string, after: number) =>
  `/api/runs/${encodeURIComponent(id)}/events?after=${after}&limit=20000`;
export function getEvents(id: string, after: number): Promise<{ events: SeqEvent[]; lastSeq: number; more: boolean }> {
  return call(eventsPath(id, after));
}

export function getRequests(
  id: string,
  offset: number,
  limit: number,
): Promise<{ total: number; requests: RequestRow[] }> {
  return call(requestsPath(id, offset, limit));
}
export const requestsPath = (id: string, offset: number, limit: number) =>
  `/api/runs/${encodeURIComponent(id)}/requests?offset=${offset}&limit=${limit}`;

export const startRun = (spec: RunSpec) => call<{ id: string; warnings: SpecIssue[] }>('/api/runs', json('POST', spec));
export const cancelRun = (id: string) => call<unknown>(`/api/runs/${encodeURIComponent(id)}/cancel`, json('POST', {}));
/** Marks a run reported by a CLI elsewhere abandoned: recorded as interrupted by the dashboard. */
export const abandonRun = (id: string) =>
  call<{ id: string; status: 'interrupted' }>(`/api/runs/${encodeURIComponent(id)}/abandon`, json('POST', {}));
/** Pin (never pruned by retention) or unpin a run. */
export const pinRun = (id: string, pinned: boolean) =>
  call<{ id: string; pinned: boolean }>(
    `/api/runs/${encodeURIComponent(id)}/${pinned ? 'pin' : 'unpin'}`,
    json('POST', {}),
  );
export const deleteRun = (id: string) => call<unknown>(`/api/runs/${encodeURIComponent(id)}`, { method: 'DELETE' });

export async function getPresets(): Promise<Preset[]> {
  const r = await call<Preset[] | { presets: Preset[] }>('/api/presets');
  return Array.isArray(r) ? r : r.presets;
}

/** Upload a vLLM result file (JSON or JSON lines) as it is; the server parses NaN/Infinity too. */
export function importResult(text: string, filename: string): Promise<ImportReply> {
  return call('/api/import', {
    method: 'POST',
    headers: { 'content-type': 'text/plain', 'x-filename': encodeURIComponent(filename) },
    body: text,
  });
}

export const exportUrl = (id: string, format: 'vllm' | 'trace' | 'csv' | 'evidence') =>
  `/api/runs/${encodeURIComponent(id)}/export?format=${format}`;
