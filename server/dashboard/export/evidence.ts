/**
 * A run's evidence in one JSON file, what a maintainer attaches to a bug
 * report (docs/design.md#evidence): the run (config, metadata, counts,
 * breaker, who interrupted it), its verdict and the run page's story
 * sentence, every stall report and server-stacks capture with its
 * fingerprint (shared/stalls/fingerprint.ts) and age, the first structural
 * timeout with its (phase-only) fingerprint, the board's context (the group
 * the run is filed under: its sentence, occurrences and rate, onset, nearest
 * passing control), the per-request table (the CSV's columns), the run's
 * warnings, the vLLM result and the Perfetto trace.
 */
import { stallFingerprint } from '../../../shared/stalls/fingerprint.ts';
import { shownBreaker, shownCounts, storyOf, storyText } from '../../../shared/runView/runStory.ts';
import { stallAgeS } from '../../../shared/runView/stalls.ts';
import type { StallRecord } from '../../../shared/runView/runModel.ts';
import { isServerStacks } from '../../../shared/stalls/stallReport.ts';
import { ciBuildHref } from '../../../shared/runInfo/runTitle.ts';
import type { BoardContext } from '../runs/boardContext.ts';
import { redactConfig, redactSpec, redactUrl } from '../runs/redact.ts';
import type { RequestTable } from './requestTable.ts';
import { interruptCauseOf, type StoredRun } from './storedRun.ts';

/** What the file says it is; a reader checks it before reading the rest. */
const EVIDENCE_FORMAT = 'stallscope-evidence';
const EVIDENCE_VERSION = 1;

const iso = (ms: number | null | undefined) => (typeof ms === 'number' ? new Date(ms).toISOString() : null);

/** A stall report with its fingerprint, age and requests (index and id), and the report as recorded. */
function stallEvidence(s: StallRecord, r: StoredRun) {
  const { model } = r;
  const report = s.report;
  const fp = stallFingerprint(report.phase, report.stack);
  const ended = r.run.status !== 'running';
  const endWall = model.startedAtMs !== null ? model.startedAtMs + r.endT : Date.now();
  return {
    ref: isServerStacks(report) ? `capture-${report.capture}` : `w${report.workerId}-op${report.opId}`,
    source: isServerStacks(report) ? 'py-spy' : 'watchdog',
    phase: report.phase,
    fingerprint: fp.fingerprint,
    fingerprintLabel: fp.label,
    fingerprintFrames: fp.frames,
    capturedAt: iso(report.capturedAtMs),
    ageS: Math.round(stallAgeS(s, model, endWall) * 1000) / 1000,
    state: s.recovered ? 'recovered' : ended ? 'blocked when the run ended' : 'still blocked',
    recovered: s.recovered ? { stalledS: s.recovered.stalledS } : null,
    requests: report.requestIds.map((requestId) => ({ index: model.indexById[requestId] ?? null, requestId })),
    report,
  };
}

/** The run as the run page's header and cards show it, with its config as started (secrets masked). */
function runFacts(r: StoredRun) {
  const { run, model } = r;
  return {
    id: run.id,
    label: run.label,
    source: run.source,
    status: run.status,
    statusMessage: model.statusMessage,
    interruptCause: interruptCauseOf(run.summary, run.state),
    error: run.error,
    model: run.model,
    target: redactUrl(run.target),
    dataset: run.dataset,
    numPrompts: run.numPrompts,
    maxConcurrency: run.maxConcurrency,
    requestRate: run.requestRate,
    failFast: run.failFast,
    createdAt: iso(run.createdAtMs),
    startedAt: iso(model.startedAtMs ?? run.startedAtMs),
    finishedAt: iso(run.finishedAtMs),
    durationS: run.durationS,
    counts: shownCounts(model, run.counts),
    breaker: shownBreaker(model, run),
    metadata: run.metadata,
  };
}

/** Where the board files the run: what a bug report needs of the pattern, without opening the dashboard. */
function boardFacts(ctx: BoardContext | null) {
  if (!ctx) return null;
  const { group: g, control: c } = ctx;
  const m = (k: string) => c?.metadata[k] ?? null;
  return {
    scope: g.scope,
    pipeline: g.pipeline,
    step: g.step,
    fingerprint: g.fingerprint,
    label: g.label,
    sentence: g.jobs[0]?.sentence ?? null,
    occurrences: g.occurrences,
    scopeRuns: g.scopeRuns,
    hangRate: g.hangRate,
    interval: { low: g.low, high: g.high },
    onset: g.onset,
    nearestControl: c && {
      runId: c.id,
      at: iso(c.atMs),
      build: m('ci_build'),
      buildUrl: ciBuildHref(m('ci_build_url')),
      node: m('ci_node'),
      commit: m('ci_commit'),
    },
  };
}

export function buildEvidence(
  r: StoredRun,
  parts: {
    table: RequestTable;
    result: Record<string, unknown>;
    trace: unknown;
    exportedAtMs: number;
    board: BoardContext | null;
  },
): Record<string, unknown> {
  const { run, model } = r;
  const story = storyOf(model, run, r.stalls, r.endT, interruptCauseOf(run.summary, run.state));
  return {
    format: EVIDENCE_FORMAT,
    version: EVIDENCE_VERSION,
    exportedAt: iso(parts.exportedAtMs),
    run: runFacts(r),
    verdict: { verdict: run.verdict, reasons: run.summary?.verdictReasons ?? [] },
    story: storyText(story),
    config: redactConfig(run.config),
    spec: redactSpec(run.spec),
    stalls: r.stalls.map((s) => stallEvidence(s, r)),
    // The first-timeout card's facts with its fingerprint (phase-only: a client sees no stack).
    firstTimeout: run.firstTimeout,
    board: boardFacts(parts.board),
    warnings: model.warnings.map((w) => ({
      t: w.t,
      ...(w.index === undefined ? {} : { index: w.index }),
      message: w.message,
    })),
    telemetryDropped: model.telemetryDropped,
    requests: parts.table,
    vllmResult: parts.result,
    trace: parts.trace,
  };
}
