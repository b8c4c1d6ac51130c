/** Verdict and status badges: the words are always shown, colour only reinforces them. */
import { humanVerdict } from '../state/verdictWords.ts';

export function StatusBadge({ verdict, status }: { verdict: string | null | undefined; status?: string | null }) {
  const key = verdict ?? (status === 'finished' ? 'finished' : (status ?? 'unknown'));
  return (
    <span className={`badge badge-${key}`} data-testid="verdict-badge" data-verdict={key}>
      {humanVerdict(key)}
    </span>
  );
}
