/**
 * The boards a dashboard process last served, each with the board version it was read at
 * (docs/design.md#board-cache). Viewers poll the board every few seconds and a fleet's ingest rarely changes
 * what it shows (a batch of request events moves no run the board reads): while the database's version is the
 * one a board was read at, the same board is served again — a one-row read instead of the grouping. Every
 * process checks the database's version, so a change any process wrote is seen by all. Bounded: the
 * least-recently-served boards go first past MAX_BOARDS or MAX_BYTES.
 */
import { sql, type Kysely } from 'kysely';
import { stallsReply, type BoardPick } from '../../../../shared/stalls/stallsApi.ts';
import type { IdTable } from './boardDetails.ts';
import { boardReply } from './boardReply.ts';
import type { BoardFilter } from './records.ts';
import type { StallscopeDb } from './schema.ts';

/** Distinct boards kept (filters × strip lengths × picks a team's viewers look at). */
const MAX_BOARDS = 64;
/** A board is ~1 MB at its 100-group default; a viewer's narrower filters far less. */
const MAX_BYTES = 32 * 1024 * 1024;

/** A board read in one snapshot, with the version that snapshot saw. */
export interface VersionedBoard {
  version: number;
  json: string;
}

/** The board's arguments as one key (JSON drops the undefined fields, as the reader thread's message does). */
export function boardKey(f: BoardFilter, last: number, pick: BoardPick): string {
  return JSON.stringify([f, last, pick]);
}

/** The database's board version (migration: SQLite 14, PostgreSQL 11); PostgreSQL's BIGINT comes as a string. */
export async function boardVersion(db: Kysely<StallscopeDb>): Promise<number> {
  const r = await sql<{ v: number | string }>`SELECT v FROM board_version WHERE id = 1`.execute(db);
  return Number(r.rows[0]?.v ?? 0);
}

/**
 * The route's reply (`stallsReply`) serialized, with the version read first in the same snapshot: `db` must be one
 * (a read transaction), or the version can be older than the board, never newer.
 */
export async function versionedBoard(
  db: Kysely<StallscopeDb>,
  ids: IdTable,
  f: BoardFilter,
  last: number,
  pick: BoardPick,
): Promise<VersionedBoard> {
  const version = await boardVersion(db);
  return { version, json: JSON.stringify(stallsReply(await boardReply(db, ids, f, last, pick))) };
}

export class BoardCache {
  private readonly boards = new Map<string, VersionedBoard>();
  private bytes = 0;

  constructor(
    private readonly maxBoards = MAX_BOARDS,
    private readonly maxBytes = MAX_BYTES,
  ) {}

  /** The board kept for `key` when it was read at `version`, else null. */
  get(key: string, version: number): string | null {
    const b = this.boards.get(key);
    if (!b || b.version !== version) return null;
    // Served again: the newest in the map's order, the last to go.
    this.boards.delete(key);
    this.boards.set(key, b);
    return b.json;
  }

  set(key: string, board: VersionedBoard): void {
    const old = this.boards.get(key);
    // A slower read of an older snapshot never replaces a newer board.
    if (old && old.version > board.version) return;
    if (old) this.drop(key, old);
    if (board.json.length > this.maxBytes) return;
    this.boards.set(key, board);
    this.bytes += board.json.length;
    for (const [k, b] of this.boards) {
      if (this.boards.size <= this.maxBoards && this.bytes <= this.maxBytes) break;
      this.drop(k, b);
    }
  }

  /** Boards kept and their characters (tests, and the bound). */
  get size(): { boards: number; chars: number } {
    return { boards: this.boards.size, chars: this.bytes };
  }

  private drop(key: string, b: VersionedBoard): void {
    this.boards.delete(key);
    this.bytes -= b.json.length;
  }
}
