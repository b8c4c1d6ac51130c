/** A stall report as one readable block for the log: phase, details, then the frames, one per line. */
import type { WatchdogStallReport } from '../../../shared/types.ts';

export function formatStallReport(r: WatchdogStallReport, timeoutS: number): string {
  const details =
    Object.entries(r.details)
      .map(([k, v]) => `${k}=${String(v)}`)
      .join(' ') || '(none)';
  const lines = [
    `[stallscope watchdog] Code2Wav stall: no progress for ${timeoutS} s`,
    `  model ${r.model}, worker ${r.workerId}, op ${r.opId}, phase ${r.phase}`,
    `  requests: ${r.requestIds.join(', ') || '(none)'}`,
    `  in phase ${r.inPhaseS.toFixed(3)} s, in op ${r.inOpS.toFixed(3)} s`,
    `  details: ${details}`,
    r.stack.length > 0
      ? `  stack of the worker thread, captured ${new Date(r.capturedAtMs).toISOString()}:`
      : `  stack: not captured (${r.stackError ?? 'unknown reason'})`,
    ...r.stack.map((f) => `    at ${f.function} (${f.file}:${f.line}:${f.column})`),
  ];
  return lines.join('\n');
}
