/** Verdict and status badges: the words are always shown, colour only reinforces them. */
const LABELS: Record<string, string> = {
  passed: 'passed',
  failed: 'failed',
  failed_closed: 'failed closed',
  errored: 'errored',
  interrupted: 'interrupted',
  running: 'running',
  finished: 'finished',
  unknown: 'loading',
};

export function StatusBadge({ verdict, status }: { verdict: string | null | undefined; status?: string | null }) {
  const key = verdict ?? (status === 'finished' ? 'finished' : (status ?? 'unknown'));
  return (
    <span className={`badge badge-${key}`} data-testid="verdict-badge" data-verdict={key}>
      {LABELS[key] ?? key}
    </span>
  );
}
