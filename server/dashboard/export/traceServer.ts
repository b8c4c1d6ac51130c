/**
 * The "server (py-spy)" process of the Perfetto export: one global instant
 * per capture of the server's process tree, every thread's stack in its args.
 */
import type { ServerStacksCaptured } from '../../../shared/protocol/protocol.ts';
import { meta, SERVER_PID, us, type TraceWriter } from './traceFormat.ts';

const frameText = (f: { function: string; file: string; line: number }) => `${f.function} (${f.file}:${f.line})`;

/** Writes one capture; the process's name goes before the first. */
export function emitServerStacks(w: TraceWriter, e: ServerStacksCaptured, first: boolean): void {
  const r = e.report;
  if (first) w.push(meta(SERVER_PID, undefined, 'process_name', 'server (py-spy)'));
  w.push({
    name: `server stacks #${r.capture}: ${r.phase}${r.inferred ? ' (inferred)' : ''}`,
    ph: 'i',
    s: 'g',
    ts: us(w.rel(r.capturedAtMs, e.t)),
    pid: SERVER_PID,
    cat: 'py-spy',
    args: {
      reason: r.reason,
      phase: r.phase,
      inferredFrom: r.inferred ? { ...r.inferred, frame: frameText(r.inferred.frame) } : null,
      durationMs: r.durationMs,
      requestIds: r.requestIds,
      notes: r.notes,
      processes: r.processes.map((p) => ({
        pid: p.pid,
        ppid: p.ppid,
        cmdline: p.cmdline,
        ...(p.error ? { error: p.error } : {}),
        threads: p.threads.map((t) => ({
          name: t.name,
          tid: t.tid,
          active: t.active,
          ownsGil: t.ownsGil,
          stack: t.frames.map(frameText),
        })),
      })),
    },
  });
}
