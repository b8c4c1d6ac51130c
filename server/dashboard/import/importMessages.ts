/** What the import worker (parseWorker.ts) receives and posts back. */
import type { ErrorCode } from '../../../shared/errors.ts';
import type { RunSummary } from '../../../shared/protocol/protocol.ts';
import type { NewRun } from '../store/common/records.ts';

/** The run's stored columns, as the store takes them (`label` is the object's own --label, if any). */
type RunColumns = Pick<
  NewRun,
  | 'id'
  | 'label'
  | 'model'
  | 'target'
  | 'dataset'
  | 'numPrompts'
  | 'maxConcurrency'
  | 'requestRate'
  | 'failFast'
  | 'metadata'
>;

export interface ImportJob {
  /** The file: text, or its UTF-8 bytes (moved to the worker, decoded there). */
  text: string | Uint8Array;
  /** Run ids are this, numbered `-N` when the file holds several runs. */
  idBase: string;
  sliceRows: number;
}

export type ImportMessage =
  | (RunColumns & {
      type: 'run';
      index: number;
      of: number;
      startedAtMs: number | null;
      summary: RunSummary;
      /** The object as stored (JSON.stringify: a bare NaN becomes null). */
      resultJson: string;
      present: string[];
      missing: string[];
      rows: number;
    })
  /** Request rows of the last announced run, already serialized. */
  | { type: 'rows'; id: string; index: number[]; status: string[]; json: string[] }
  | { type: 'done' }
  /** `field`: the file's key that was refused (a column's value no database can store). */
  | { type: 'error'; code: ErrorCode; message: string; field?: string };
