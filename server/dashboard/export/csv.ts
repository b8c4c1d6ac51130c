/**
 * Per-request rows as CSV (RFC 4180 quoting), one line per request in dataset
 * order. Text cells that a spreadsheet would read as a formula are neutralised
 * (OWASP CSV injection): an error message or request id from a target is data.
 */
import type { RequestRow } from '../../../shared/apiSchemas.ts';
import { asText } from '../../../shared/text.ts';

const COLUMNS: [string, (r: RequestRow) => unknown][] = [
  ['index', (r) => r.index],
  ['request_id', (r) => r.requestId],
  ['status', (r) => r.status],
  ['queued_ms', (r) => r.queuedT],
  ['sent_ms', (r) => r.sentT],
  ['first_token_ms', (r) => r.firstTokenT],
  ['first_audio_ms', (r) => r.firstAudioT],
  ['end_ms', (r) => r.endT],
  ['ttft_s', (r) => r.ttftS],
  ['e2el_s', (r) => r.e2elS],
  ['audio_ttfp_s', (r) => r.audioTtfpS],
  ['audio_duration_s', (r) => r.audioDurationS],
  ['output_tokens', (r) => r.outputTokens],
  ['prompt_len', (r) => r.promptLen],
  ['attempts', (r) => r.attempts],
  ['timeout_kind', (r) => r.timeoutKind],
  ['error', (r) => r.error],
];

/** First characters that make a spreadsheet evaluate a cell (=, +, -, @, tab, CR). */
const FORMULA_START = /^[=+\-@\t\r]/;

export function csvCell(v: unknown): string {
  if (v === null || v === undefined) return '';
  // Numbers are ours (a negative time stays a number); only text can carry a formula.
  const s = typeof v === 'string' && FORMULA_START.test(v) ? `'${v}` : asText(v);
  return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

export function requestsCsv(rows: RequestRow[]): string {
  const lines = [COLUMNS.map(([h]) => h).join(',')];
  for (const r of rows) lines.push(COLUMNS.map(([, get]) => csvCell(get(r))).join(','));
  return `${lines.join('\r\n')}\r\n`;
}
