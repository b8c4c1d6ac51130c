/**
 * Per-request rows as CSV (RFC 4180 quoting), one line per request in dataset
 * order (the columns are ./requestTable.ts's). Text cells that a spreadsheet would read as a formula are neutralised
 * (OWASP CSV injection): an error message or request id from a target is data.
 */
import { asText } from '../../../shared/text.ts';
import { requestTable, type RequestTable } from './requestTable.ts';

/** First characters that make a spreadsheet evaluate a cell (=, +, -, @, tab, CR). */
const FORMULA_START = /^[=+\-@\t\r]/;

export function csvCell(v: unknown): string {
  if (v === null || v === undefined) return '';
  // Numbers are ours (a negative time stays a number); only text can carry a formula.
  const s = typeof v === 'string' && FORMULA_START.test(v) ? `'${v}` : asText(v);
  return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

/** The per-request table (./requestTable.ts) as CSV: a value that does not exist is a blank cell. */
export function requestsCsv(table: RequestTable): string {
  const lines = [table.columns.join(',')];
  for (const r of table.rows) lines.push(r.map(csvCell).join(','));
  return `${lines.join('\r\n')}\r\n`;
}

/** The same CSV written page by page (the table's rows a page at a time): requestsCsv's bytes. */
export async function* csvLines(pages: AsyncIterable<RequestTable['rows']>): AsyncGenerator<string> {
  yield `${requestTable([], { ops: {}, opsByRequest: {} }, {}).columns.join(',')}\r\n`;
  for await (const rows of pages) {
    let text = '';
    for (const r of rows) text += `${r.map(csvCell).join(',')}\r\n`;
    yield text;
  }
}
