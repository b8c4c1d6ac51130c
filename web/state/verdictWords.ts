/** Verdicts and statuses in words, wherever the UI names one (badges, filters, the compare picker). */
const WORDS: Record<string, string> = {
  passed: 'passed',
  failed: 'failed',
  failed_closed: 'failed closed',
  errored: 'errored',
  interrupted: 'interrupted',
  running: 'running',
  finished: 'finished',
  unknown: 'loading',
};

export const humanVerdict = (v: string): string => WORDS[v] ?? v.replace(/_/g, ' ');
