/**
 * One py-spy capture of the server's process tree in the blocked-phase view:
 * the Code2Wav phase strip with the inferred phase lit (saying it was
 * inferred, from which frame and rule), the capture's notes, then every
 * process with its threads — likely blocked ones first, idle ones folded —
 * and Copy for the whole dump as text. The first capture also says what was
 * below Python at the stall: the GPU busy or idle, and the kernel's GPU hang
 * and reset lines (docs/design.md#below-python).
 */
import type { ServerStacksReport } from '../../../shared/stalls/stallReport.ts';
import { frameLine, reasonText } from '../../state/serverStacks.ts';
import { stallCopyText, type StallCopyFacts } from '../../state/stallText.ts';
import { PhaseStrip } from './PhaseStrip.tsx';
import { ServerProcess } from './ServerProcess.tsx';
import { useCopy } from './useCopy.ts';
import { useRunPlace } from './runPlace.ts';
import { count, plural } from '../../../shared/format.ts';
import { gpuStateText } from '../../../shared/stalls/gpuState.ts';

export function ServerStacksCard({
  report: r,
  facts,
  onFindRequest,
}: {
  report: ServerStacksReport;
  /** The run, the capture's age and the request indexes, for Copy. */
  facts: StallCopyFacts;
  onFindRequest: (id: string) => void;
}) {
  const [copied, copy] = useCopy();
  const place = useRunPlace();
  const threads = r.processes.reduce((n, p) => n + p.threads.length, 0);
  return (
    <article className="stall server-stacks" data-testid="server-stacks" data-phase={r.phase}>
      <header className="stall-head">
        <span className="stall-title">
          Server stacks #{r.capture} · py-spy{r.native ? ' --native' : ''} · pid {r.rootPid}
        </span>
        <span className="stall-age">{reasonText(r.reason)}</span>
        <span className={`pill ${r.inferred ? 'pill-bad' : ''}`}>
          {r.inferred ? `inferred: ${r.phase}` : 'phase not inferred'}
        </span>
        <button
          type="button"
          onClick={() => copy(stallCopyText(r, { ...facts, metadata: place, dashboardUrl: location.origin }))}
          data-testid="copy-server-stacks"
        >
          {copied ? 'Copied' : 'Copy'}
        </button>
      </header>
      <PhaseStrip phase={r.phase} label="Code2Wav phases (inferred)" />
      <p className="muted" data-testid="inferred-from">
        {r.inferred ? (
          <>
            Phase <strong>{r.phase}</strong> inferred from frame <code>{frameLine(r.inferred.frame)}</code> in pid{' '}
            {r.inferred.pid}, thread {r.inferred.tid} “{r.inferred.threadName}” (rule {r.inferred.rule}).
          </>
        ) : (
          <>No frame matched a phase rule.</>
        )}{' '}
        {plural(r.processes.length, 'process', 'processes')}, {plural(threads, 'thread')}, read in {count(r.durationMs)}{' '}
        ms.
      </p>
      {r.gpuAtStall && (
        <p data-testid="gpu-at-stall" title={r.gpuAtStall.tool ?? undefined}>
          <strong>{gpuStateText(r.gpuAtStall)}</strong>
          {r.kernelLogAtStall &&
            (r.kernelLogAtStall.error
              ? ` · kernel log not read: ${r.kernelLogAtStall.error}`
              : ` · ${plural(r.kernelLogAtStall.lines.length, 'GPU hang/reset line')} in the kernel log since the run started`)}
        </p>
      )}
      {r.kernelLogAtStall && r.kernelLogAtStall.lines.length > 0 && (
        <details data-testid="kernel-log-at-stall">
          <summary>Kernel log</summary>
          <pre>{r.kernelLogAtStall.lines.join('\n')}</pre>
        </details>
      )}
      {r.notes.length > 0 && (
        <ul className="notes" data-testid="server-stacks-notes">
          {r.notes.map((n) => (
            <li key={n}>{n}</li>
          ))}
        </ul>
      )}
      {r.requestIds.length > 0 && (
        <p>
          Requests in flight:{' '}
          {r.requestIds.map((id) => (
            <button key={id} type="button" className="link" onClick={() => onFindRequest(id)}>
              {id}
            </button>
          ))}
        </p>
      )}
      {r.processes.map((p) => (
        <ServerProcess key={p.pid} p={p} />
      ))}
    </article>
  );
}
