/**
 * One capture of the server's process tree: walk the descendants of the
 * server pid from /proc, run one `py-spy dump` per process concurrently
 * (each killed at the capture's own limit), infer the Code2Wav phase, and
 * build the `py-spy` stall report. Never throws: whatever goes wrong becomes
 * a process error and a note.
 */
import { inferPhase, threadPhase, type CompiledRules } from '../../../../shared/stalls/phaseRules.ts';
import type {
  CaptureReason,
  ServerProcess,
  ServerStacksReport,
  ServerThread,
} from '../../../../shared/stalls/stallReport.ts';
import { processTree, type ProcInfo } from './procfs.ts';
import { dumpProcess, type DumpResult } from './pySpy.ts';

/** The capture's own limit: a py-spy still running then is killed. */
export const CAPTURE_LIMIT_MS = 5000;
/**
 * Frames kept per capture (~100 bytes each as JSON): a report travels as one
 * event to the dashboard and --report-to, and is stored. Beyond it, idle
 * threads keep their top frames first, then every thread (counted in `framesDropped`).
 */
export const MAX_CAPTURE_FRAMES = 20_000;

export interface CaptureOptions {
  pySpy: string;
  rootPid: number;
  native: boolean;
  rules: CompiledRules;
  limitMs?: number;
  signal?: AbortSignal;
  /** The tree to dump; defaults to the root and its descendants from /proc. */
  tree?: ProcInfo[];
}

export interface CaptureInput {
  capture: number;
  reason: CaptureReason;
  requestIds: string[];
}

/** Likely blocked: running, holding the GIL, or in a Code2Wav phase. */
export function likelyBlocked(t: ServerThread): boolean {
  return t.active || t.ownsGil || t.phase !== undefined;
}

export async function captureTree(o: CaptureOptions, inp: CaptureInput): Promise<ServerStacksReport> {
  const capturedAtMs = Date.now();
  const t0 = performance.now();
  const tree = o.tree ?? processTree(o.rootPid);
  const results = await Promise.all(
    tree.map((p) =>
      dumpProcess({
        pySpy: o.pySpy,
        pid: p.pid,
        native: o.native,
        limitMs: o.limitMs ?? CAPTURE_LIMIT_MS,
        signal: o.signal,
      }),
    ),
  );
  const processes: ServerProcess[] = tree.map((p, i) => toProcess(p, results[i], o.rules));
  trimToBudget(processes);
  const notes = captureNotes(processes, o.rootPid);
  const inferred = inferPhase(processes, o.rules);
  const stack =
    (inferred && processes.find((p) => p.pid === inferred.pid)?.threads.find((t) => t.tid === inferred.tid)?.frames) ??
    processes.flatMap((p) => p.threads).find(likelyBlocked)?.frames ??
    [];
  const readable = processes.some((p) => !p.error);
  return {
    source: 'py-spy',
    capture: inp.capture,
    reason: inp.reason,
    rootPid: o.rootPid,
    native: o.native,
    capturedAtMs,
    durationMs: Math.round((performance.now() - t0) * 10) / 10,
    phase: inferred?.phase ?? 'unknown',
    inferred,
    requestIds: inp.requestIds,
    processes,
    stack,
    ...(readable ? {} : { stackError: processes[0]?.error?.message ?? 'no process could be read' }),
    notes,
  };
}

function toProcess(p: ProcInfo, r: DumpResult, rules: CompiledRules): ServerProcess {
  if (!r.ok)
    return { pid: p.pid, ppid: p.ppid, cmdline: p.cmdline, threads: [], error: { code: r.code, message: r.message } };
  const threads = r.threads.map((t) => {
    const m = threadPhase(t.frames, rules);
    return m ? { ...t, phase: m.rule.phase } : t;
  });
  return { pid: p.pid, ppid: p.ppid, cmdline: p.cmdline, threads };
}

/**
 * One note per failure worth a warning: py-spy missing, permission denied,
 * a time-out (once each), and the root gone or not Python. A descendant that
 * is not Python (a shell, a compiler) is only marked on its process.
 */
function captureNotes(processes: ServerProcess[], rootPid: number): string[] {
  const notes: string[] = [];
  const seen = new Set<string>();
  for (const p of processes) {
    const e = p.error;
    if (!e) continue;
    const once = e.code === 'STACKS_PYSPY_MISSING' || e.code === 'STACKS_PERMISSION' || e.code === 'STACKS_TIMEOUT';
    const root = p.pid === rootPid;
    if (!once && !root) continue;
    if (once && seen.has(e.code)) continue;
    seen.add(e.code);
    notes.push(e.message);
  }
  return notes;
}

/** Shortens stacks, least useful first, until the capture holds at most MAX_CAPTURE_FRAMES frames. */
export function trimToBudget(processes: ServerProcess[], budget = MAX_CAPTURE_FRAMES): void {
  const threads = processes.flatMap((p) => p.threads);
  const total = () => threads.reduce((n, t) => n + t.frames.length, 0);
  for (const [keep, which] of [
    [10, (t: ServerThread) => !likelyBlocked(t)],
    [50, () => true],
    [5, () => true],
  ] as const) {
    if (total() <= budget) return;
    for (const t of threads) {
      if (!which(t) || t.frames.length <= keep) continue;
      t.framesDropped = (t.framesDropped ?? 0) + t.frames.length - keep;
      t.frames = t.frames.slice(0, keep);
    }
  }
}
