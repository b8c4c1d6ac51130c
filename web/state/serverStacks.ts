/**
 * Pure helpers of the blocked-phase view for py-spy captures: threads in
 * the order a person reads them (likely blocked first: active, holding the
 * GIL, or in a Code2Wav phase) and the whole dump as text for Copy.
 */
import { dateTime } from '../../shared/format.ts';
import type { ServerProcess, ServerStacksReport, ServerThread, StackFrame } from '../../shared/stalls/stallReport.ts';
import { belowPythonLines } from '../../shared/stalls/gpuState.ts';

export function isLikelyBlocked(t: ServerThread): boolean {
  return t.active || t.ownsGil || t.phase !== undefined;
}

/** Likely-blocked threads first (phase match, then active, then GIL), each group in py-spy's order. */
export function orderThreads(p: ServerProcess): { likely: ServerThread[]; idle: ServerThread[] } {
  const rank = (t: ServerThread) => (t.phase !== undefined ? 0 : t.active ? 1 : 2);
  const likely = p.threads
    .map((t, i) => ({ t, i }))
    .filter(({ t }) => isLikelyBlocked(t))
    .sort((a, b) => rank(a.t) - rank(b.t) || a.i - b.i)
    .map(({ t }) => t);
  return { likely, idle: p.threads.filter((t) => !isLikelyBlocked(t)) };
}

export function reasonText(r: ServerStacksReport['reason']): string {
  return r.kind === 'first_timeout'
    ? `at the first timeout (request #${r.requestIndex} ${r.requestId}, ${r.timeoutKind} after ${r.elapsedS.toFixed(1)} s)`
    : `no SSE event for ${r.afterS} s (longest silence ${r.silentS.toFixed(1)} s)`;
}

export function frameLine(f: StackFrame): string {
  return `${f.function || '(anonymous)'} (${f.file}:${f.line})${f.language === 'native' ? ' [native]' : ''}`;
}

/** The whole capture as text, like `py-spy dump` prints it, with the inference on top. */
export function serverStacksText(r: ServerStacksReport): string {
  const lines = [
    `Server stacks #${r.capture} (py-spy${r.native ? ' --native' : ''}) of pid ${r.rootPid}, ${reasonText(r.reason)}`,
    `captured ${dateTime(r.capturedAtMs)} in ${r.durationMs} ms`,
    r.inferred
      ? `inferred phase: ${r.phase} (rule ${r.inferred.rule}) from ${frameLine(r.inferred.frame)} in pid ${r.inferred.pid} thread ${r.inferred.tid} "${r.inferred.threadName}"`
      : 'inferred phase: none (no frame matched a phase rule)',
    ...r.notes.map((n) => `note: ${n}`),
    ...belowPythonLines(r.gpuAtStall, r.kernelLogAtStall),
  ];
  for (const p of r.processes) {
    lines.push('', `Process ${p.pid}${p.ppid !== null ? ` (parent ${p.ppid})` : ''}: ${p.cmdline}`);
    if (p.error) lines.push(`  ${p.error.code}: ${p.error.message}`);
    for (const t of p.threads) {
      const tags = [
        t.active ? 'active' : 'idle',
        ...(t.ownsGil ? ['gil'] : []),
        ...(t.phase ? [`phase ${t.phase}`] : []),
      ];
      lines.push(`Thread ${t.tid} (${tags.join(', ')}): "${t.name}"`);
      for (const f of t.frames) lines.push(`    ${frameLine(f)}`);
      if (t.framesDropped) lines.push(`    ... ${t.framesDropped} more frames`);
    }
  }
  return lines.join('\n');
}
