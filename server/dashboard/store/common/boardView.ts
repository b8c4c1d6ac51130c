/**
 * The whole stall board over the runs a store read (docs/design.md#stall-board): the one fold both stores
 * answer `GET /api/stalls` with. SQLite runs it on its reader thread (sqlite/readerThread.ts), so the
 * fold never holds the dashboard's event loop; PostgreSQL runs it where the rows arrive.
 */
import type { BoardRun } from '../../../../shared/stalls/stallBoard.ts';
import { buildBoard, type StallBoardReply } from '../../../../shared/stalls/stallsApi.ts';

export function boardView(read: { runs: BoardRun[]; truncated: boolean }, last: number): StallBoardReply {
  return { groups: buildBoard(read.runs, last), runsConsidered: read.runs.length, truncated: read.truncated };
}
