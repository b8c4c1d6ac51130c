/** The result file's name (vLLM's pattern) and writing it, whole or appended as JSON-lines. */
import { appendFile, mkdir, stat, writeFile } from 'node:fs/promises';
import { dirname, isAbsolute, normalize, sep } from 'node:path';
import { pyJsonDumps } from '../../../shared/vllmResult/pyJson.ts';
import { resultFloatKindFor } from '../../../shared/vllmResult/floatKeys.ts';
import { formatResultDate } from '../../../shared/vllmResult/resultJson.ts';
import { pyFloat } from './pyFormat.ts';
import type { RampUp } from '../../../shared/config/runConfig.ts';

export interface ResultFilenameInput {
  label: string | null;
  backend: string;
  requestRate: number;
  maxConcurrency: number | null;
  modelId: string;
  /** A Date (formatted in local time) or an already formatted `%Y%m%d-%H%M%S`. */
  date: Date | string;
  rampUp?: RampUp;
}

/**
 * `{label or backend}-{rate}qps[-concurrency{N}]-{model basename}-{date}.json`,
 * or `{label}-ramp-up-{strategy}-{start}qps-{end}qps[…]` with ramp-up, as
 * `vllm bench serve` names it.
 */
export function resultFilename(input: ResultFilenameInput): string {
  const label = safeNamePart(input.label || input.backend);
  const concurrency = input.maxConcurrency === null ? '' : `-concurrency${input.maxConcurrency}`;
  const model = safeNamePart(input.modelId.split('/').pop() ?? '');
  const date = typeof input.date === 'string' ? input.date : formatResultDate(input.date);
  const rate = input.rampUp
    ? `ramp-up-${input.rampUp.strategy}-${input.rampUp.startRps}qps-${input.rampUp.endRps}qps`
    : `${pyFloat(input.requestRate)}qps`;
  return `${label}-${rate}${concurrency}-${model}-${date}.json`;
}

/** The longest label or model part kept in a generated name: the whole name stays far below NAME_MAX (255 bytes). */
export const NAME_PART_MAX = 100;

/**
 * A label or model name as one safe file-name part. vLLM joins them into the
 * name as they are, so `--label 'a/../../x'` writes two folders above
 * `--result-dir` and a 300-character label fails with ENAMETOOLONG after the
 * run; here a path separator, a control character or a leading dot becomes
 * `_`, and the part is cut to NAME_PART_MAX characters.
 */
export function safeNamePart(part: string): string {
  // eslint-disable-next-line no-control-regex
  const cleaned = part.replace(/[/\\\u0000-\u001f\u007f]/g, '_').replace(/^\./, '_');
  return [...cleaned].slice(0, NAME_PART_MAX).join('');
}

/**
 * Why `--result-filename` would leave `--result-dir`, or null when it stays
 * inside (a plain name or a relative path without `..`).
 */
export function resultFilenameEscape(filename: string): string | null {
  if (filename === '' || isAbsolute(filename)) return 'must be a relative file name inside --result-dir';
  const n = normalize(filename);
  if (n === '..' || n.startsWith(`..${sep}`) || n.split(sep).includes('..'))
    return 'must not climb out of --result-dir with ..';
  return null;
}

/**
 * Write the result as vLLM does: the whole file, or with `append` one more
 * object after a newline (JSON-lines; no newline before the first object or
 * after the last). The directory is created when missing.
 */
export async function writeResult(
  path: string,
  obj: Record<string, unknown>,
  opts: { append?: boolean } = {},
): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  const text = pyJsonDumps(obj, resultFloatKindFor(obj));
  if (!opts.append) {
    await writeFile(path, text, 'utf8');
    return;
  }
  const size = await stat(path).then(
    (s) => s.size,
    () => 0,
  );
  await appendFile(path, size > 0 ? `\n${text}` : text, 'utf8');
}
