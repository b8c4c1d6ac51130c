/**
 * With `--report-to`, the fingerprint the CI outputs name is the one the board files the run under: the stack's
 * fingerprint from the server's telemetry (a watchdog report the target posted to the dashboard itself), which
 * this process never sees — not the client's phase-only one. So it is read back from the dashboard once the
 * run's evidence is in: `GET /api/stalls` (the groups this run is in) is asked until one holds a stack of this
 * run or the wait is over, then `GET /api/runs/:id` for the stack's frames.
 *
 * The board's reply is changing shape (groups per CI job and fingerprint), so it is read defensively, by the
 * fields this needs only, here and nowhere else: a group holds the run when its `runs` (or an `evidence[].runId`)
 * names it; its sentence is the job's (`jobs[]` by pipeline and step) or the group's own `sentence`.
 */
import { frameLine, type CiStall } from './ciReport.ts';

/** How long the board is asked for the run's stack evidence after the run ended. */
export const BOARD_WAIT_MS = 10_000;
const POLL_MS = 250;
/** Each request's own bound: a dashboard that holds a reply does not hold the job. */
const REQUEST_MS = 5_000;

export interface BoardTarget {
  /** The dashboard's base URL, without its token. */
  base: string;
  token: string | null;
  runId: string;
  pipeline: string | null;
  step: string | null;
}

export type BoardReadback =
  { ok: true; stall: CiStall; note: string | null } | { ok: false; why: string; note?: undefined };

type Json = Record<string, unknown>;
const isObj = (x: unknown): x is Json => typeof x === 'object' && x !== null && !Array.isArray(x);
const str = (x: unknown): string | null => (typeof x === 'string' ? x : null);
const strs = (x: unknown): string[] => (Array.isArray(x) ? x.filter((v): v is string => typeof v === 'string') : []);

/**
 * The dashboard's URL and the token to read it with: `$STALLSCOPE_VIEW_TOKEN` when set — a CI job's `report`
 * token may post but not read (docs/design.md#tokens) — else the one `--report-to` posts with (`?token=`, else
 * `$STALLSCOPE_TOKEN`).
 */
export function boardTarget(reportTo: string, env: Readonly<Record<string, string | undefined>>) {
  const u = new URL(reportTo);
  const token = env.STALLSCOPE_VIEW_TOKEN || (u.searchParams.get('token') ?? env.STALLSCOPE_TOKEN ?? null);
  return { base: `${u.origin}${u.pathname.replace(/\/+$/, '')}`, token };
}

async function getJson(t: BoardTarget, path: string, signal: AbortSignal): Promise<unknown> {
  let res: Response;
  try {
    res = await fetch(`${t.base}${path}`, {
      headers: t.token ? { authorization: `Bearer ${t.token}` } : {},
      signal: AbortSignal.any([signal, AbortSignal.timeout(REQUEST_MS)]),
    });
  } catch (e) {
    // fetch says only "fetch failed"; the cause says why (ECONNREFUSED, a timeout, the signal).
    const cause = (e as { cause?: { code?: string; message?: string } }).cause;
    throw new Error(`GET ${path}: ${cause?.code ?? cause?.message ?? (e as Error).message}`, { cause: e });
  }
  const text = await res.text();
  if (!res.ok) {
    let why = text.slice(0, 200);
    try {
      const body = JSON.parse(text) as unknown;
      if (isObj(body)) why = `${str(body.code) ?? ''} ${str(body.message) ?? ''}`.trim();
    } catch {
      // not JSON: the text's start says what answered
    }
    const hint =
      res.status === 401 || res.status === 403
        ? ": reading the board needs a view (or admin) token: set $STALLSCOPE_VIEW_TOKEN ('stallscope token create --scope view')"
        : '';
    throw new Error(`GET ${path}: HTTP ${res.status}${why ? ` ${why}` : ''}${hint}`);
  }
  return JSON.parse(text) as unknown;
}

/** This run's refs in a group (`w0-op3`, `capture-1`, `timeout-4`), or null when the group does not hold it. */
function runRefs(g: Json, runId: string): string[] | null {
  const occ = Array.isArray(g.evidence) ? g.evidence.filter(isObj).find((o) => o.runId === runId) : undefined;
  if (occ) return strs(occ.refs);
  return strs(g.runs).includes(runId) ? [] : null;
}

const isStackRef = (ref: string) => !ref.startsWith('timeout-');

function sentenceOf(g: Json, t: BoardTarget): string | null {
  const jobs = Array.isArray(g.jobs) ? g.jobs.filter(isObj) : [];
  const job = jobs.find((j) => (str(j.pipeline) ?? null) === t.pipeline && (str(j.step) ?? null) === t.step);
  return str(job?.sentence) ?? str(g.sentence) ?? (jobs.length === 1 ? str(jobs[0].sentence) : null);
}

/** The group the board files the run under: one holding a stack of it, else one holding its timeout. */
function pickGroup(reply: unknown, runId: string): { group: Json; stack: boolean } | null {
  const groups = isObj(reply) && Array.isArray(reply.groups) ? reply.groups.filter(isObj) : [];
  let phaseOnly: Json | null = null;
  for (const g of groups) {
    const refs = runRefs(g, runId);
    if (refs === null || typeof g.fingerprint !== 'string') continue;
    if (refs.some(isStackRef) || strs(g.frames).length > 0) return { group: g, stack: true };
    phaseOnly ??= g;
  }
  return phaseOnly ? { group: phaseOnly, stack: false } : null;
}

/** The stack of the run's report filed under `fingerprint`, from its detail, as frame lines. */
async function stackOf(t: BoardTarget, fingerprint: string, signal: AbortSignal): Promise<string[]> {
  const detail = await getJson(t, `/api/runs/${encodeURIComponent(t.runId)}`, signal);
  const entries = isObj(detail) && Array.isArray(detail.stallReports) ? detail.stallReports.filter(isObj) : [];
  for (const e of entries) {
    if (!isObj(e.fingerprint) || e.fingerprint.fingerprint !== fingerprint || !isObj(e.report)) continue;
    const frames = Array.isArray(e.report.stack) ? e.report.stack.filter(isObj) : [];
    return frames.map((f) =>
      frameLine({ function: str(f.function) ?? '?', file: str(f.file) ?? '?', line: Number(f.line) || 0 }),
    );
  }
  return [];
}

/**
 * The board's filing of the run, asked until it holds a stack of the run or `waitMs` is over (then its
 * phase-only filing, said so), or why it could not be read. `signal` stops the wait.
 */
export async function readBoardFiling(
  t: BoardTarget,
  signal: AbortSignal,
  waitMs = BOARD_WAIT_MS,
): Promise<BoardReadback> {
  const deadline = Date.now() + waitMs;
  const q = new URLSearchParams();
  if (t.pipeline) q.append('metadata', `ci_pipeline=${t.pipeline}`);
  if (t.step) q.append('metadata', `ci_step=${t.step}`);
  const path = `/api/stalls${q.size ? `?${q}` : ''}`;
  let found: { group: Json; stack: boolean } | null;
  try {
    for (;;) {
      found = pickGroup(await getJson(t, path, signal), t.runId);
      if (found?.stack || Date.now() + POLL_MS > deadline || signal.aborted) break;
      await new Promise((res) => setTimeout(res, POLL_MS));
    }
    if (!found)
      return { ok: false, why: `the board holds no stall evidence of run ${t.runId} after ${waitMs / 1000} s` };
    const g = found.group;
    const fingerprint = g.fingerprint as string;
    const phase = str(g.phase) ?? 'unknown';
    const stall: CiStall = {
      source: 'board',
      fingerprint,
      phase,
      label: str(g.label) ?? phase,
      stack: found.stack ? await stackOf(t, fingerprint, signal) : [],
      boardSentence: sentenceOf(g, t),
    };
    const note = found.stack
      ? null
      : `no stack of this run reached the dashboard within ${waitMs / 1000} s (no server telemetry or py-spy capture): the board files it under the phase-only fingerprint ${fingerprint} for now`;
    return { ok: true, stall, note };
  } catch (e) {
    return { ok: false, why: (e as Error).message };
  }
}
