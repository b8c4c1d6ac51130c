/**
 * `trace` dataset (self-timed): JSONL, one request per line:
 *   {"timestamp": 12.5, "prompt": "text"}                      or
 *   {"timestamp": 12.5, "messages": [...], "output_len": 64, "body": {...}}
 * `timestamp` is seconds from the benchmark start. `body` adds top-level keys.
 */
import { readFileSync } from 'node:fs';
import { StallscopeError } from '../../../shared/errors.ts';
import { estimateTokens, type LoadedDataset, type SampleRequest } from './sample.ts';

const DEFAULT_OUTPUT_LEN = 256;

export function loadTrace(path: string, numPrompts: number): LoadedDataset {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    throw new StallscopeError('CONFIG_DATASET_UNREADABLE', `${path}: ${(e as Error).message}`, 'dataset.path');
  }
  const samples: SampleRequest[] = [];
  const lines = text.split('\n');
  for (let ln = 0; ln < lines.length && samples.length < numPrompts; ln++) {
    const line = lines[ln].trim();
    if (!line) continue;
    samples.push(parseLine(line, `${path}:${ln + 1}`));
  }
  if (samples.length === 0)
    throw new StallscopeError('CONFIG_DATASET_UNREADABLE', `${path}: no requests`, 'dataset.path');
  return { samples, warnings: [] };
}

function parseLine(line: string, where: string): SampleRequest {
  let row: unknown;
  try {
    row = JSON.parse(line);
  } catch {
    throw new StallscopeError('CONFIG_DATASET_UNREADABLE', `${where}: not JSON`, 'dataset.path');
  }
  if (!row || typeof row !== 'object' || Array.isArray(row)) {
    throw new StallscopeError('CONFIG_DATASET_UNREADABLE', `${where}: not an object`, 'dataset.path');
  }
  const r = row as Record<string, unknown>;
  const ts = r.timestamp ?? 0;
  if (typeof ts !== 'number' || !Number.isFinite(ts) || ts < 0) {
    throw new StallscopeError('CONFIG_DATASET_UNREADABLE', `${where}: timestamp must be seconds ≥ 0`, 'dataset.path');
  }
  let messages: unknown[];
  let promptText = '';
  if (Array.isArray(r.messages)) messages = r.messages;
  else if (typeof r.prompt === 'string') {
    promptText = r.prompt;
    messages = [{ role: 'user', content: [{ type: 'text', text: r.prompt }] }];
  } else
    throw new StallscopeError('CONFIG_DATASET_UNREADABLE', `${where}: needs "prompt" or "messages"`, 'dataset.path');
  const out = r.output_len ?? r.max_tokens ?? DEFAULT_OUTPUT_LEN;
  if (typeof out !== 'number' || !Number.isInteger(out) || out < 1) {
    throw new StallscopeError(
      'CONFIG_DATASET_UNREADABLE',
      `${where}: output_len must be an integer ≥ 1`,
      'dataset.path',
    );
  }
  const body =
    r.body && typeof r.body === 'object' && !Array.isArray(r.body) ? (r.body as Record<string, unknown>) : undefined;
  const promptLen =
    typeof r.prompt_len === 'number' ? r.prompt_len : estimateTokens(promptText || JSON.stringify(messages));
  return { messages, promptLen, outputLen: out, rowBody: body, timestamp: ts };
}
