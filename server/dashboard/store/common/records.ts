/**
 * What crosses the store's interface (common/storeApi.ts): a new run and its
 * updates, its stored row, numbered events, request rows in slices, stall
 * rows as stored, the filters of the run list and the stall board, and what
 * another dashboard process wrote. The same on both stores.
 */
import type { RunListItem } from '../../../../shared/protocol/apiSchemas.ts';
import type { RunState, RunSummary } from '../../../../shared/protocol/protocol.ts';
import type { FirstTimeout } from '../../../../shared/stalls/stallEvidence.ts';
import type { ServerIdentity } from '../../../../shared/runInfo/serverIdentity.ts';

export type RunSource = RunListItem['source'];

export interface QueueStats {
  /** Events accepted and not yet written. */
  events: number;
  /** When the oldest of them was queued (epoch ms; meaningless while `events` is 0). */
  sinceMs: number;
  /** Batches the store could not write (dropped, or retried while the database was away). */
  failedBatches: number;
}

/** What both stores' writers expose of their queue (sqlite/writer.ts, pg/pgWriter.ts). */
export interface QueuedWriter {
  readonly pendingCount: number;
  readonly pendingSinceMs: number;
  readonly stats: { readonly failedBatches: number };
}

/** A writer's queue as `/metrics` reads it, one mapping for both stores. */
export function queueStatsOf(w: QueuedWriter): QueueStats {
  return { events: w.pendingCount, sinceMs: w.pendingSinceMs, failedBatches: w.stats.failedBatches };
}

/** What a new run row holds; the rest is filled as it runs. */
export interface NewRun {
  id: string;
  source: RunSource;
  status: string;
  label: string | null;
  model: string | null;
  target: string | null;
  dataset: string | null;
  numPrompts: number | null;
  maxConcurrency: number | null;
  requestRate: string | null;
  failFast: boolean;
  createdAtMs: number;
  startedAtMs?: number | null;
  spec?: unknown;
  config?: unknown;
  metadata: Record<string, string>;
}

export interface RunFilter {
  verdict?: string;
  status?: string;
  text?: string;
  source?: string;
  /** Exact key=value matches, all required. */
  metadata?: [string, string][];
  /** Happened at or after / before (epoch ms). */
  since?: number;
  until?: number;
  limit: number;
  offset: number;
}

export interface BoardFilter extends Pick<RunFilter, 'metadata' | 'since' | 'until'> {
  /** The most runs read (the newest); the reply says when more matched. */
  maxRuns: number;
}

/** The columns `update` may set. */
export interface RunUpdate {
  status?: string;
  verdict?: string | null;
  startedAtMs?: number | null;
  finishedAtMs?: number | null;
  summary?: unknown;
  result?: unknown;
  /** How many result parts hold the result, set once they are all written (see writeResultPart). */
  resultParts?: number;
  importInfo?: unknown;
  error?: string | null;
  state?: RunState;
  lastSeq?: number;
  config?: unknown;
  target?: string;
  /** Set by the live writer as events come; given here only when a run moves between stores. */
  firstTimeout?: FirstTimeout;
  serverIdentity?: ServerIdentity;
}

/** The full row for GET /api/runs/:id. */
export type StoredRunRow = RunListItem & {
  spec: unknown;
  config: unknown;
  summary: RunSummary | null;
  importInfo: unknown;
  error: string | null;
  lastSeq: number;
  state: RunState | null;
  firstTimeout: FirstTimeout | null;
  serverIdentity: ServerIdentity | null;
  /** Reported events the database refused to store (docs/design.md#outage-buffer), and its words for the last. */
  droppedEvents: number;
  droppedError: string | null;
};

/** One serialized numbered event: `json` is the RunEvent. */
export interface StoredEvent {
  seq: number;
  json: string;
}

/** Request rows already serialized (an import's slice). */
export interface RowSlice {
  index: number[];
  json: string[];
  status: string[];
}

/** Something another dashboard process wrote to the same database. */
export type RemoteChange =
  { kind: 'events'; runId: string; lastSeq: number } | { kind: 'runs'; runId: string; status: string };

/** A stall report row as stored, for moving runs between stores. */
export interface StallRow {
  workerId: number;
  opId: number;
  seq: number;
  phase: string;
  reportJson: string;
  recoveredJson: string | null;
  fingerprint: string | null;
  fingerprintJson: string | null;
}
