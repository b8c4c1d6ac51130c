/** What the import worker (parseWorker.ts) receives and posts back. */
import type { ErrorCode } from '../../shared/errors.ts';
import type { RunSummary } from '../../shared/protocol.ts';

export interface ImportJob {
  /** The file: text, or its UTF-8 bytes (moved to the worker, decoded there). */
  text: string | Uint8Array;
  /** Run ids are this, numbered `-N` when the file holds several runs. */
  idBase: string;
  sliceRows: number;
}

export type ImportMessage =
  | {
      type: 'run';
      index: number;
      of: number;
      id: string;
      /** The object's own --label, if any. */
      label: string | null;
      model: string | null;
      target: string | null;
      dataset: string | null;
      numPrompts: number | null;
      maxConcurrency: number | null;
      requestRate: string | null;
      failFast: boolean;
      startedAtMs: number | null;
      metadata: Record<string, string>;
      summary: RunSummary;
      /** The object as stored (JSON.stringify: a bare NaN becomes null). */
      resultJson: string;
      present: string[];
      missing: string[];
      rows: number;
    }
  /** Request rows of the last announced run, already serialized. */
  | { type: 'rows'; id: string; index: number[]; status: string[]; json: string[] }
  | { type: 'done' }
  | { type: 'error'; code: ErrorCode; message: string };
