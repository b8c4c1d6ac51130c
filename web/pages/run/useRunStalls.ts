/** The run's stall reports: from its event stream, or the stored ones when it has no telemetry stream. */
import { useMemo } from 'react';
import type { RunDetail } from '../../../shared/protocol/apiSchemas.ts';
import type { RunModel, StallRecord } from '../../../shared/runView/runModel.ts';
import { runStalls } from '../../../shared/runView/stalls.ts';

export function useRunStalls(
  model: RunModel | undefined,
  detail: RunDetail | null,
  startedAtMs: number | null,
): StallRecord[] {
  return useMemo(() => runStalls(model, detail?.stallReports ?? [], startedAtMs), [model, detail, startedAtMs]);
}
