import { describeStopRule, parseStopRule } from '../../../shared/stopRules.ts';

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

/** The stop rules field's hint: each rule given, in words; the syntax while there is none. */
export function stopRulesInWords(v: unknown): string {
  const rules = Array.isArray(v) ? v.filter((r): r is string => typeof r === 'string') : [];
  if (rules.length === 0)
    return 'one per line: timeouts>=N, errors>=N, consecutive_errors>=N, error_rate>0.2,window=50,min=20, no_progress>=60s, p99_ttft_ms>2000,min=20';
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
