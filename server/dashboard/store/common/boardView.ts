/**
 * The whole stall board over the runs a store read (docs/design.md#stall-board), by the JavaScript fold: the
 * definition the database's board (boardReply.ts) is checked against, and what a reply is when its runs are
 * already in memory.
 */
import type { BoardRun } from '../../../../shared/stalls/stallBoard.ts';
import { buildBoard, type BoardPick, type StallBoardReply } from '../../../../shared/stalls/stallsApi.ts';

export function boardView(
  read: { runs: BoardRun[]; truncated: boolean },
  last: number,
  pick: BoardPick = {},
): StallBoardReply {
  const all = buildBoard(read.runs, last).filter((g) => !pick.fingerprint || g.fingerprint === pick.fingerprint);
  return {
    groups: pick.limit === undefined ? all : all.slice(0, pick.limit),
    groupsTotal: all.length,
    runsConsidered: read.runs.length,
    truncated: read.truncated,
  };
}
