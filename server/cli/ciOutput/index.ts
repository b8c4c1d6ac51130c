/**
 * `stallscope bench --junit-xml FILE` and `--ci-summary`, after the run (docs/design.md#ci-outputs): the stall
 * card — with `--report-to`, the fingerprint the board files the run under, read back from the dashboard —
 * then the JUnit file and the job summary from one report. Nothing here changes the run's result file or exit
 * code: what cannot be done is a warning on stderr, and said in the outputs themselves.
 */
import { writeFile } from 'node:fs/promises';
import type { RunConfig } from '../../../shared/config/runConfig.ts';
import type { RunSummary } from '../../../shared/protocol/protocol.ts';
import { boardTarget, readBoardFiling } from './boardReadback.ts';
import { ciReport, type CiStall } from './ciReport.ts';
import { deliverSummary, type AnnotationStyle } from './deliverSummary.ts';
import { junitXml } from './junitXml.ts';
import { ownStall } from './ownStall.ts';
import type { RunEvidence } from './runEvidence.ts';
import { summaryMarkdown } from './summaryMarkdown.ts';

export { RunEvidence } from './runEvidence.ts';

export interface CiOutputFlags {
  /** `--junit-xml FILE`, or null. */
  junitXml: string | null;
  /** `--ci-summary`. */
  summary: boolean;
}

export interface CiOutputInput {
  flags: CiOutputFlags;
  config: RunConfig;
  summary: RunSummary;
  result: Record<string, unknown>;
  evidence: RunEvidence;
  reportTo: string | null;
  env: Readonly<Record<string, string | undefined>>;
  /** One line on stderr. */
  warn: (line: string) => void;
  /** Stops waiting for the dashboard (a signal after the run). */
  signal: AbortSignal;
}

const STYLE: Record<RunSummary['verdict'], AnnotationStyle> = {
  passed: 'success',
  failed: 'error',
  failed_closed: 'error',
  errored: 'error',
  interrupted: 'warning',
};

/** The stall card and what could not be learned for it. */
async function stallOf(i: CiOutputInput): Promise<{ stall: CiStall | null; notes: string[] }> {
  if (!i.evidence.stalled) return { stall: null, notes: [] };
  const own = ownStall(i.evidence);
  if (!i.reportTo) return { stall: own, notes: [] };
  const { base, token } = boardTarget(i.reportTo, i.env);
  const m = i.config.output.metadata ?? {};
  const read = await readBoardFiling(
    { base, token, runId: i.config.runId, pipeline: m.ci_pipeline ?? null, step: m.ci_step ?? null },
    i.signal,
  );
  if (read.ok) return { stall: read.stall, notes: read.note ? [read.note] : [] };
  return {
    stall: own,
    notes: [
      `the board's fingerprint for this run could not be read from ${base} (${read.why}); the fingerprint here is the bench's own (${own?.label ?? 'none'}), which the board may file differently`,
    ],
  };
}

export async function writeCiOutputs(i: CiOutputInput): Promise<void> {
  const { stall, notes } = await stallOf(i);
  for (const n of notes) i.warn(`stallscope bench: WARNING: ${n}`);
  const dashboard = i.reportTo ? boardTarget(i.reportTo, i.env).base : null;
  const report = ciReport({ ...i, stall, dashboard, notes });
  if (i.flags.junitXml) {
    const started = new Date(Date.now() - Math.max(0, i.summary.durationS) * 1000);
    try {
      await writeFile(i.flags.junitXml, junitXml(report, started));
    } catch (e) {
      i.warn(
        `stallscope bench: warning: --junit-xml ${i.flags.junitXml} could not be written: ${(e as Error).message}`,
      );
    }
  }
  if (i.flags.summary) {
    const warnings = await deliverSummary(
      summaryMarkdown(report),
      STYLE[i.summary.verdict],
      report.metadata.ci_step,
      i.env,
    );
    for (const w of warnings) i.warn(`stallscope bench: warning: ${w}`);
  }
}
