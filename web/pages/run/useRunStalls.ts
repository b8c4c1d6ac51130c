/** The run's stall reports: from its event stream, or the stored ones when it has no telemetry stream. */
import { useMemo } from 'react';
import type { RunDetail } from '../../../shared/apiSchemas.ts';
import type { RunModel, StallRecord } from '../../state/runModel.ts';

export function useRunStalls(
  model: RunModel | undefined,
  detail: RunDetail | null,
  startedAtMs: number | null,
): StallRecord[] {
  return useMemo(() => {
    if (model && model.stalls.length > 0) return model.stalls;
    // Runs without a telemetry stream (e.g. imports) may still carry stored reports.
    return (detail?.stallReports ?? []).map((e) => {
      const report = e.report;
      return {
        t: startedAtMs !== null ? report.capturedAtMs - startedAtMs : 0,
        report,
        recovered: e.recovered ? { t: 0, stalledS: e.recovered.stalledS } : null,
      };
    });
  }, [model, detail, startedAtMs]);
}
