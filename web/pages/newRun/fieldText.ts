import { describeStopRule, parseStopRule } from '../../../shared/config/stopRules.ts';

/** How list and JSON fields of the form read and write their text. */
export const list = (v: unknown) => (Array.isArray(v) ? v.join(', ') : typeof v === 'string' ? v : '');
export const splitList = (t: string) =>
  t
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
export const numList = (t: string) => splitList(t).map((s) => (Number.isFinite(Number(s)) ? Number(s) : s));
export const json = (v: unknown) => (typeof v === 'string' ? v : JSON.stringify(v ?? {}));
export const parseJson = (t: string): unknown => {
  try {
    return JSON.parse(t) as unknown;
  } catch {
    return t; // the schema then says "must be a JSON object" beside the field
  }
};
export const lines = (v: unknown) => (Array.isArray(v) ? v.join('\n') : '');
export const splitLines = (t: string) =>
  t
    .split('\n')
    .map((s) => s.trim())
    .filter(Boolean);

/** What the stop rules field shows while empty: one rule of each kind, one per line. */
export const STOP_RULES_PLACEHOLDER = [
  'no_progress>=60s',
  'errors>=5',
  'consecutive_errors>=3',
  'error_rate>0.2,window=50,min=20',
  'timeouts>=2',
  'p99_ttft_ms>2000,min=20',
].join('\n');

/** The stop rules field's hint: each rule given, in words; what the rules do while there is none. */
export function stopRulesInWords(v: unknown): string {
  const rules = Array.isArray(v) ? v.filter((r): r is string => typeof r === 'string') : [];
  if (rules.length === 0)
    return 'stop the run, failing closed, when requests time out, fail, stop making progress or a live metric crosses a bound; each rule is said in words here as you type it';
  return rules
    .map((r) => {
      try {
        const rule = parseStopRule(r);
        return `${rule.text}: ${describeStopRule(rule)}`;
      } catch {
        return `${r}: not a rule yet`;
      }
    })
    .join('; ');
}
