/**
 * "Copy bug report": the run's report as the dashboard writes it
 * (`GET /api/runs/:id/report.md`, shared/runInfo/bugReport.ts) — the story,
 * the board's sentence, where it ran, the nearest passing control, the stack,
 * liveness and links — on the clipboard in one click, ready for an issue.
 */
import { useState } from 'react';
import { getBugReport } from '../../api/rest.ts';

type State = 'idle' | 'copying' | 'copied' | 'failed';

const LABEL: Record<State, string> = {
  idle: 'Copy bug report',
  copying: 'Copying…',
  copied: 'Copied bug report',
  failed: 'Could not copy: try again',
};

export function CopyBugReport({ runId }: { runId: string }) {
  const [state, setState] = useState<State>('idle');
  const copy = async () => {
    setState('copying');
    try {
      await navigator.clipboard.writeText(await getBugReport(runId));
      setState('copied');
    } catch {
      setState('failed');
    }
  };
  return (
    <p className="bug-report">
      <button type="button" onClick={() => void copy()} disabled={state === 'copying'} data-testid="copy-bug-report">
        {LABEL[state]}
      </button>{' '}
      <a href={`/api/runs/${encodeURIComponent(runId)}/report.md`} target="_blank" rel="noreferrer">
        report.md
      </a>
    </p>
  );
}
