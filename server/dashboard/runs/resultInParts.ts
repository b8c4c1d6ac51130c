/**
 * A dashboard run's result stored as imports store theirs: in parts of about
 * a megabyte (`run_results`, one write per turn of the event loop), so a
 * million-request run's 80 MB result is never one string nor one write
 * (docs/design.md#result-in-parts). The text is the JSON of the result with
 * vLLM's per-request arrays spliced in (detailedResult.ts), built a part at a
 * time straight from the engine's request table: the arrays are never whole
 * in memory either.
 */
import { setImmediate as yieldTurn } from 'node:timers/promises';
import { outputLength } from '../../../shared/metrics/index.ts';
import { DETAILED_ARRAYS, type ResultRecord } from '../../../shared/vllmResult/resultJson.ts';
import type { RecordList } from '../../../shared/metrics/input.ts';
import { RESULT_PART_CHARS } from '../store/common/resultParts.ts';
import { detailedArraysBefore } from './detailedResult.ts';

/** One per-request array's value for a record, as `buildResultJson` writes it. */
const VALUE: Record<(typeof DETAILED_ARRAYS)[number], (r: ResultRecord) => unknown> = {
  input_lens: (r) => r.promptLen,
  start_times: (r) => r.startTime,
  output_lens: (r) => outputLength(r),
  ttfts: (r) => r.ttft,
  itls: (r) => Array.from(r.itl),
  generated_texts: (r) => r.generatedText,
  errors: (r) => r.error,
};

/**
 * The text of `JSON.stringify(withDetailedArrays(result, records))`, in
 * parts of about `max` characters (each part ends between two JSON tokens).
 */
export function* resultTextParts(
  result: Record<string, unknown>,
  records: RecordList<ResultRecord>,
  max = RESULT_PART_CHARS,
): Generator<string> {
  const before = detailedArraysBefore(result);
  let buf = '{';
  let first = true;
  const key = (k: string): string => {
    const s = `${first ? '' : ','}${JSON.stringify(k)}:`;
    first = false;
    return s;
  };
  /** One array, item by item: a part may end between two items. */
  function* array(name: string, length: number, item: (i: number) => unknown): Generator<string> {
    buf += `${key(name)}[`;
    for (let i = 0; i < length; i++) {
      buf += (i === 0 ? '' : ',') + (JSON.stringify(item(i)) ?? 'null'); // as JSON.stringify writes holes
      if (buf.length >= max) {
        yield buf;
        buf = '';
      }
    }
    buf += ']';
  }
  for (const k of Object.keys(result)) {
    if (k === before) for (const a of DETAILED_ARRAYS) yield* array(a, records.length, (i) => VALUE[a](records.at(i)!));
    const v = result[k];
    // Long arrays of the result itself (`statuses`: one per request) the same way.
    if (Array.isArray(v)) {
      yield* array(k, v.length, (i) => (v as unknown[])[i]);
      continue;
    }
    const text = JSON.stringify(v) as string | undefined;
    if (text === undefined) continue; // as JSON.stringify leaves out undefined members
    buf += key(k) + text;
    if (buf.length >= max) {
      yield buf;
      buf = '';
    }
  }
  yield `${buf}}`;
}

/**
 * Writes the parts, one per turn, through `write(part, text)` (each awaited); returns how
 * many, or null when `stopped()` said to stop first (the run was recorded
 * meanwhile: its parts are left for the store's clean-up of unfinished ones).
 */
export async function writeResultParts(
  parts: Iterable<string>,
  write: (part: number, text: string) => Promise<void> | void,
  stopped: () => boolean,
): Promise<number | null> {
  let n = 0;
  for (const text of parts) {
    if (stopped()) return null;
    // Awaited: on PostgreSQL a part is written over a socket, and the count is set only once all are in.
    await write(n++, text);
    await yieldTurn();
  }
  return n;
}
