/**
 * An export written as a stream (docs/design.md#exports): the document is
 * built once with a sentinel string where each per-request part goes,
 * serialised as it always was, and cut at the sentinels; each part is then
 * written page by page between the cuts. So the bytes are today's, and only
 * one page of requests is ever held.
 */
import { pyJsonDumps } from '../../../shared/vllmResult/pyJson.ts';
import { resultFloatKind } from '../../../shared/vllmResult/floatKeys.ts';

/** A value that stands for a part streamed later; unique per name, and never a value a run holds (a NUL). */
export const sentinel = (name: string): string => `\u0000stallscope-stream:${name}`;

/** How `text` quotes a sentinel: JSON.stringify and Python's json.dumps both write NUL as `\u0000`. */
const quoted = (name: string): string => JSON.stringify(sentinel(name));

/** The text `skeleton` with each quoted sentinel replaced by its part, in the order they occur. */
export async function* spliced(
  skeleton: string,
  parts: Record<string, () => AsyncIterable<string>>,
): AsyncGenerator<string> {
  const at = Object.keys(parts)
    .map((name) => ({ name, i: skeleton.indexOf(quoted(name)) }))
    .filter((p) => p.i >= 0)
    .sort((a, b) => a.i - b.i);
  let from = 0;
  for (const { name, i } of at) {
    yield skeleton.slice(from, i);
    yield* parts[name]();
    from = i + quoted(name).length;
  }
  yield skeleton.slice(from);
}

/** A JSON array (JSON.stringify's bytes) of the items of `pages`. */
export async function* jsonArray(pages: AsyncIterable<readonly unknown[]>): AsyncGenerator<string> {
  yield '[';
  let first = true;
  for await (const page of pages) {
    if (page.length === 0) continue;
    yield (first ? '' : ',') + JSON.stringify(page).slice(1, -1);
    first = false;
  }
  yield ']';
}

/** The array under result key `key` as vLLM's layout writes it (pyJsonDumps with the result's float kinds). */
export async function* pyArray(key: string, pages: AsyncIterable<readonly unknown[]>): AsyncGenerator<string> {
  const open = pyJsonDumps({ [key]: [] }, resultFloatKind).slice(0, -2); // `{"key": [`
  yield '[';
  let first = true;
  for await (const page of pages) {
    if (page.length === 0) continue;
    yield (first ? '' : ', ') + pyJsonDumps({ [key]: page }, resultFloatKind).slice(open.length, -2);
    first = false;
  }
  yield ']';
}
