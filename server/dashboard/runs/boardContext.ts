/**
 * A run's place on the stall board (docs/design.md#stall-board), for what
 * leaves the dashboard about one run — its bug report and its evidence file:
 * the group its stall is filed under (its job's runs, or the local runs), its
 * occurrence there, and its nearest passing control with that run's
 * metadata. Reads the run's job only (a metadata filter), so it costs one
 * job's board, not the whole store's.
 */
import type { BoardRun } from '../../../shared/stalls/boardRun.ts';
import { BOARD_MAX_RUNS } from '../../../shared/stalls/boardLimits.ts';
import { buildBoard, type StallGroupReply } from '../../../shared/stalls/stallsApi.ts';
import type { DashboardStore } from '../store/common/storeApi.ts';

export interface BoardContext {
  group: StallGroupReply;
  /** The nearest passing control of the run's job, with its metadata; null when the job has none. */
  control: { id: string; atMs: number; metadata: Readonly<Record<string, string>> } | null;
}

/** The run's job as a board filter: its pipeline and step, or none for a run without CI metadata. */
function jobFilter(metadata: Readonly<Record<string, string>>): [string, string][] {
  return (['ci_pipeline', 'ci_step'] as const).filter((k) => metadata[k]).map((k) => [k, metadata[k]]);
}

/** The run's board context, or null when the run has no stall evidence (or is past the board's newest runs). */
export async function boardContext(
  store: DashboardStore,
  run: { id: string; metadata: Readonly<Record<string, string>> },
): Promise<BoardContext | null> {
  const { runs } = await store.board.runs({ metadata: jobFilter(run.metadata), maxRuns: BOARD_MAX_RUNS });
  // Its first group on the board (a run with two stacks is filed under both; the board's order picks one).
  const group = buildBoard(runs).find((g) => g.runs.includes(run.id));
  if (!group) return null;
  const controlId = group.evidence.find((o) => o.runId === run.id)?.control ?? null;
  const c: BoardRun | undefined = controlId === null ? undefined : runs.find((r) => r.id === controlId);
  return { group, control: c ? { id: c.id, atMs: c.atMs, metadata: c.metadata } : null };
}
