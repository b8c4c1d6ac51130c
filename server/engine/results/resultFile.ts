/** The result file's name (vLLM's pattern) and writing it, whole or appended as JSON-lines. */
import { appendFile, mkdir, stat, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { pyJsonDumps } from '../../../shared/vllmResult/pyJson.ts';
import { resultFloatKind } from '../../../shared/vllmResult/floatKeys.ts';
import { formatResultDate } from '../../../shared/vllmResult/resultJson.ts';
import { pyFloat } from './pyFormat.ts';
import type { RampUp } from '../config.ts';

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
  const label = input.label || input.backend;
  const concurrency = input.maxConcurrency === null ? '' : `-concurrency${input.maxConcurrency}`;
  const model = input.modelId.split('/').pop();
  const date = typeof input.date === 'string' ? input.date : formatResultDate(input.date);
  const rate = input.rampUp
    ? `ramp-up-${input.rampUp.strategy}-${input.rampUp.startRps}qps-${input.rampUp.endRps}qps`
    : `${pyFloat(input.requestRate)}qps`;
  return `${label}-${rate}${concurrency}-${model}-${date}.json`;
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
  const text = pyJsonDumps(obj, resultFloatKind);
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
