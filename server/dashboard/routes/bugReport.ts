/**
 * GET /api/runs/:id/report.md (scope view): the run's bug report in Markdown
 * (shared/runInfo/bugReport.ts writes it): the story sentence, the board's
 * sentence for its stall, where it ran, the nearest passing control, the
 * stack, the liveness result, what was below Python (GPU, kernel log) and
 * the dashboard's links.
 */
import { Type } from 'typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { StallscopeError } from '../../../shared/errors.ts';
import { ErrorReplySchema } from '../../../shared/protocol/apiSchemas.ts';
import { storyOf, storyText } from '../../../shared/runView/runStory.ts';
import { bugReportMarkdown, type ReportStack } from '../../../shared/runInfo/bugReport.ts';
import { livenessText } from '../../../shared/stalls/liveness.ts';
import { belowPythonLines } from '../../../shared/stalls/gpuState.ts';
import { isServerStacks } from '../../../shared/stalls/stallReport.ts';
import { interruptCauseOf, readStoredRun, type StoredRun } from '../export/storedRun.ts';
import { boardContext } from '../runs/boardContext.ts';

/** The GPU state and kernel log of the first py-spy capture that read them (only the first capture does). */
function belowPython(r: StoredRun): string[] {
  for (const { report } of r.stalls)
    if (isServerStacks(report) && (report.gpuAtStall || report.kernelLogAtStall))
      return belowPythonLines(report.gpuAtStall, report.kernelLogAtStall);
  return [];
}

/** The run's first stall evidence with a stack, as the report shows it. */
function firstStack(r: StoredRun): ReportStack | null {
  const s = r.stalls[0]?.report;
  if (!s) return null;
  const source = isServerStacks(s) ? `py-spy capture ${s.capture}` : `watchdog, worker ${s.workerId}, op ${s.opId}`;
  return { source, phase: s.phase, frames: s.stack };
}

export const bugReportRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/api/runs/:id/report.md',
    {
      schema: {
        params: Type.Object({ id: Type.String({ minLength: 1, maxLength: 200 }) }),
        response: { 200: Type.String(), 404: ErrorReplySchema },
      },
    },
    async (req, reply) => {
      const r = await readStoredRun(app.store, req.params.id);
      if (!r) throw new StallscopeError('API_NOT_FOUND', `run ${req.params.id}`);
      const { run, model } = r;
      const ctx = await boardContext(app.store, run);
      const story = storyText(storyOf(model, run, r.stalls, r.endT, interruptCauseOf(run.summary, run.state)));
      const markdown = bugReportMarkdown({
        run: { id: run.id, verdict: run.verdict, status: run.status, metadata: run.metadata },
        story,
        board: ctx && { ...ctx.group, sentence: ctx.group.jobs[0].sentence },
        control: ctx?.control ?? null,
        stack: firstStack(r),
        liveness: model.liveness ? livenessText(model.liveness.report) : null,
        belowPython: belowPython(r),
        // The address this request reached the dashboard at: the links work for whoever fetched the report.
        dashboardUrl: `${req.protocol}://${req.host}`,
      });
      return reply.type('text/markdown; charset=utf-8').send(markdown);
    },
  );
};
