/**
 * A stall card's Copy, pure: what a maintainer pastes into a bug report must
 * say which run, which phase and op (or capture), how long it had lasted and
 * which requests were in it, before the stack itself; with the fingerprint
 * (shared/stalls/fingerprint.ts) that finds the same hang in other runs.
 */
import { ciBuildHref, runTitle } from '../../shared/runInfo/runTitle.ts';
import { stallFingerprint } from '../../shared/stalls/fingerprint.ts';
import { isServerStacks, type StallReport, type WatchdogStallReport } from '../../shared/stalls/stallReport.ts';
import type { StackFrame } from '../../shared/types.ts';
import { serverStacksText } from './serverStacks.ts';

export interface StallCopyFacts {
  runId: string;
  /** Seconds the stall had lasted (stallAgeS: in the phase for the watchdog, since the capture for py-spy). */
  ageS: number;
  /** The card's state words ("still blocked", "recovered after 3.1 s"), if it has them. */
  state?: string;
  indexById: Readonly<Record<string, number>>;
  /** Where the run ran (its CI metadata), and the dashboard's address (`location.origin`) for its link. */
  metadata?: Readonly<Record<string, string>>;
  dashboardUrl?: string;
}

/** "Where: build 14607 (https://…) · node mi325-agent-2 · commit abc123 · job vllm-omni / minicpmo-accuracy", the run's link. */
function whereLines(f: StallCopyFacts): string[] {
  const m = f.metadata ?? {};
  const href = ciBuildHref(m.ci_build_url);
  const job = [m.ci_pipeline, m.ci_step].filter(Boolean).join(' / ');
  const where = [
    m.ci_build ? `build ${m.ci_build}${href ? ` (${href})` : ''}` : href,
    m.ci_node && `node ${m.ci_node}`,
    m.ci_commit && `commit ${m.ci_commit}`,
    job && `job ${job}`,
  ].filter(Boolean);
  return [
    ...(where.length ? [`Where: ${where.join(' · ')}`] : []),
    ...(f.dashboardUrl ? [`Dashboard: ${f.dashboardUrl}/#/runs/${encodeURIComponent(f.runId)}`] : []),
  ];
}

/** "Run build 14607 · mi325-agent-2 · minicpmo-accuracy (bench-…)", or "Run bench-…" without CI metadata. */
function runName(f: StallCopyFacts): string {
  const title = runTitle(f.metadata);
  return title ? `Run ${title} (${f.runId})` : `Run ${f.runId}`;
}

function frameText(f: StackFrame): string {
  return `${f.function || '(anonymous)'} (${f.file}:${f.line}:${f.column})${f.language && f.language !== 'js' ? ` [${f.language}]` : ''}`;
}

/** "#5 run-5, #6 run-6" (a request this run does not know keeps its id alone), or "none". */
function requestList(ids: readonly string[], indexById: StallCopyFacts['indexById']): string {
  if (ids.length === 0) return 'none';
  return ids.map((id) => (indexById[id] !== undefined ? `#${indexById[id]} ${id}` : id)).join(', ');
}

function watchdogText(r: WatchdogStallReport, f: StallCopyFacts): string[] {
  return [
    `${runName(f)}: Code2Wav stall, worker ${r.workerId}, op ${r.opId}, phase ${r.phase}, ` +
      `${f.ageS.toFixed(1)} s in ${r.phase}${f.state ? ` (${f.state})` : ''}`,
    ...whereLines(f),
    `Requests in the op: ${requestList(r.requestIds, f.indexById)}`,
    ...fingerprintLine(r),
    r.stack.length > 0 ? 'Owner-thread stack:' : `No stack: ${r.stackError ?? 'capture failed'}`,
    ...r.stack.map((fr) => `  at ${frameText(fr)}`),
  ];
}

function fingerprintLine(r: StallReport): string[] {
  const fp = stallFingerprint(r.phase, r.stack);
  return [`Fingerprint: ${fp.fingerprint} (${fp.label})`];
}

/** The text a stall card's Copy puts on the clipboard. */
export function stallCopyText(r: StallReport, f: StallCopyFacts): string {
  if (!isServerStacks(r)) return watchdogText(r, f).join('\n');
  return [
    `${runName(f)}: server stacks #${r.capture}, phase ${r.phase}${r.inferred ? ' (inferred)' : ''}, ` +
      `${f.ageS.toFixed(1)} s since the capture`,
    ...whereLines(f),
    `Requests in flight: ${requestList(r.requestIds, f.indexById)}`,
    ...fingerprintLine(r),
    '',
    serverStacksText(r),
  ].join('\n');
}
