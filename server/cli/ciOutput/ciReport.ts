/**
 * One run as the CI outputs tell it (the JUnit file and the job summary say the same things): which test it is
 * (a classname and name stable across builds), its verdict and failure type, the stall card — phase and
 * fingerprint as the board files the run, the stack, what the server still answered — and the links. Pure.
 */
import type { RunConfig } from '../../../shared/config/runConfig.ts';
import type { RunSummary } from '../../../shared/protocol/protocol.ts';
import { evaluateThreshold } from '../../../shared/runInfo/verdict.ts';
import { ciBuildHref, runTitle } from '../../../shared/runInfo/runTitle.ts';
import { livenessText } from '../../../shared/stalls/liveness.ts';
import type { StackFrame } from '../../../shared/stalls/stallReport.ts';
import type { RunEvidence } from './runEvidence.ts';

/** The stall as the outputs show it. */
export interface CiStall {
  /** `board`: read back from the dashboard the run reported to; `bench`: this process's own evidence. */
  source: 'board' | 'bench';
  fingerprint: string;
  phase: string;
  /** `phase/function`, how people name it. */
  label: string;
  /** The blocked thread's stack, top first, one `function (file:line)` each; empty for a timeout alone. */
  stack: string[];
  /** The board's sentence for this fingerprint in this job ("seen in 5 of the last 8 runs …"), or null. */
  boardSentence: string | null;
}

export interface CiLinks {
  build: string | null;
  run: string | null;
  board: string | null;
}

export interface CiReport {
  runId: string;
  classname: string;
  name: string;
  /** The run's title by where it ran ("build 14607 · node-b · step"), or null outside CI. */
  title: string | null;
  verdict: RunSummary['verdict'];
  durationS: number;
  /** Null for a passed run. */
  failure: { type: string; message: string } | null;
  reasons: string[];
  stall: CiStall | null;
  liveness: string | null;
  metadata: Readonly<Record<string, string>>;
  links: CiLinks;
  /** What the outputs could not learn, said in them as loudly as on stderr (the board unread, …). */
  notes: string[];
}

/** The benchmark, never a run id or a time: backend, dataset (its locale), and the label when given. */
export function testcaseName(config: RunConfig): string {
  const d = config.workload.dataset;
  const dataset = d.name === 'seed-tts' ? `seed-tts ${d.locale}` : d.name;
  const label = config.output.label;
  return [config.target.backend, dataset, ...(label ? [label] : [])].join(' · ');
}

/**
 * The CI job, stable across builds: pipeline and step (Buildkite's step key, else its label; GitHub's job id;
 * GitLab's job name — the `ci_step` metadata), else `stallscope.<backend>` for a run outside CI.
 */
export function testcaseClassname(config: RunConfig): string {
  const m = config.output.metadata ?? {};
  const parts = [m.ci_pipeline, m.ci_step].filter((p): p is string => Boolean(p));
  return parts.length > 0 ? parts.join('.') : `stallscope.${config.target.backend}`;
}

/** `function (file:line)`: how a frame reads in a card. */
export function frameLine(f: Pick<StackFrame, 'function' | 'file' | 'line'>): string {
  return `${f.function} (${f.file}${f.line > 0 ? `:${f.line}` : ''})`;
}

/** The failure's type: `stall` for stall evidence, else what failed the run (each its own, for CI's filters). */
function failureType(summary: RunSummary, result: Record<string, unknown>, config: RunConfig, stalled: boolean) {
  if (stalled) return 'stall';
  switch (summary.verdict) {
    case 'errored':
      return 'errored';
    case 'interrupted':
      return 'interrupted';
    case 'failed_closed':
      return summary.stoppedBy ? `stopped.${summary.stoppedBy.kind}` : 'failed_closed';
    default:
      break;
  }
  if (summary.counts.errored > 0 || summary.counts.completed < summary.counts.total) return 'errors';
  const failing = config.output.thresholds.filter((t) => !evaluateThreshold(t, result).holds);
  if (config.accuracy.seedTtsEval && (failing.length === 0 || failing.some((t) => t.includes('seed_tts_'))))
    return 'accuracy';
  return failing.length > 0 ? 'threshold' : 'failed';
}

export interface CiReportInput {
  config: RunConfig;
  summary: RunSummary;
  result: Record<string, unknown>;
  evidence: RunEvidence;
  stall: CiStall | null;
  /** The dashboard's base URL (no token) with `--report-to`, else null. */
  dashboard: string | null;
  notes: string[];
}

export function ciReport(i: CiReportInput): CiReport {
  const { config, summary, stall } = i;
  const metadata = config.output.metadata ?? {};
  const type = summary.verdict === 'passed' ? null : failureType(summary, i.result, config, stall !== null);
  const headline = summary.verdictReasons.filter((r) => !r.startsWith('failed closed:'))[0] ?? summary.verdict;
  const message =
    type === 'stall' && stall
      ? `stalled in phase ${stall.phase}, fingerprint ${stall.fingerprint} (${stall.label}): ${headline}`
      : `${summary.verdict}: ${headline}`;
  return {
    runId: config.runId,
    classname: testcaseClassname(config),
    name: testcaseName(config),
    title: runTitle(metadata),
    verdict: summary.verdict,
    durationS: summary.durationS,
    failure: type ? { type, message } : null,
    reasons: summary.verdictReasons,
    stall,
    liveness: i.evidence.liveness ? livenessText(i.evidence.liveness) : null,
    metadata,
    links: {
      build: ciBuildHref(metadata.ci_build_url),
      run: i.dashboard ? `${i.dashboard}/#/runs/${encodeURIComponent(config.runId)}` : null,
      board: i.dashboard ? boardLink(i.dashboard, metadata) : null,
    },
    notes: i.notes,
  };
}

/** The Stalls page filtered to this run's CI job (its `meta` filter), or the whole board outside CI. */
function boardLink(dashboard: string, m: Readonly<Record<string, string>>): string {
  const pairs = (['ci_pipeline', 'ci_step'] as const)
    .filter((k) => m[k] && !/\s/.test(m[k]))
    .map((k) => `${k}=${m[k]}`);
  return pairs.length
    ? `${dashboard}/#/stalls?${new URLSearchParams({ meta: pairs.join(' ') })}`
    : `${dashboard}/#/stalls`;
}
