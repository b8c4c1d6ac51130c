/**
 * What the header offers to stop or remove a run, each asking first, its
 * failure said beside it (never the whole page): Cancel for a run this
 * dashboard runs; for one reported by a CLI elsewhere (`--report-to`), which
 * the dashboard cannot stop, the plain fact and Mark abandoned; once marked
 * abandoned, Delete. Pin keeps an ended run whole when retention prunes
 * old runs' rows.
 */
import { useState, type ReactNode } from 'react';

/** A danger button that asks first; `act` runs on confirmation and its error is shown here. */
function Confirmed({
  ids,
  label,
  question,
  confirm,
  keep,
  act,
}: {
  /** Test ids of the button, the confirmation and the way back. */
  ids: { open: string; confirm: string; keep: string };
  label: string;
  question: ReactNode;
  confirm: string;
  keep: string;
  act: () => Promise<unknown>;
}) {
  const [confirming, setConfirming] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const go = () => {
    setConfirming(false);
    setError(null);
    act().catch((e: unknown) => setError(e instanceof Error ? e.message : String(e)));
  };
  return (
    <>
      {confirming ? (
        <span className="confirm" role="group" aria-label={`Confirm: ${label}`}>
          <span>{question}</span>
          <button type="button" className="danger" data-testid={ids.confirm} onClick={go}>
            {confirm}
          </button>
          <button type="button" data-testid={ids.keep} onClick={() => setConfirming(false)} autoFocus>
            {keep}
          </button>
        </span>
      ) : (
        <button type="button" className="danger" onClick={() => setConfirming(true)} data-testid={ids.open}>
          {label}…
        </button>
      )}
      {error && (
        <span className="err" role="alert" data-testid={`${ids.open}-error`}>
          {error}
        </span>
      )}
    </>
  );
}

export function CancelControl({ onCancel }: { onCancel: () => Promise<unknown> }) {
  return (
    <Confirmed
      ids={{ open: 'cancel-run', confirm: 'confirm-cancel', keep: 'keep-running' }}
      label="Cancel run"
      question="Cancel the run? In-flight requests are aborted, queued ones end unsent."
      confirm="Cancel the run"
      keep="Keep running"
      act={onCancel}
    />
  );
}

/** A live run reported by `stallscope bench --report-to`: who drives it, and Mark abandoned for when that CLI is gone. */
export function ReportedRunControl({ onAbandon }: { onAbandon: () => Promise<unknown> }) {
  return (
    <span className="reported-run" data-testid="reported-run">
      <span className="muted">
        Driven by <code>stallscope bench --report-to</code> from a CLI on another machine or CI job: stop it there. If
        it is gone, mark the run abandoned.
      </span>
      <Confirmed
        ids={{ open: 'abandon-run', confirm: 'confirm-abandon', keep: 'keep-waiting' }}
        label="Mark abandoned"
        question="Mark the run abandoned? It is recorded as interrupted here; its CLI is not stopped, and what it still sends is refused."
        confirm="Mark abandoned"
        keep="Keep waiting"
        act={onAbandon}
      />
    </span>
  );
}

/** Delete, on a run marked abandoned (the runs list offers it for every ended run). */
export function DeleteControl({ onDelete }: { onDelete: () => Promise<unknown> }) {
  return (
    <Confirmed
      ids={{ open: 'delete-run', confirm: 'confirm-delete-run', keep: 'keep-run' }}
      label="Delete run"
      question="Delete the run, its requests and stall reports?"
      confirm="Delete"
      keep="Keep"
      act={onDelete}
    />
  );
}

/** Pin / Unpin: a pinned run is never pruned by retention (docs/design.md#retention). */
export function PinControl({
  pinned: initial,
  onPin,
}: {
  pinned: boolean;
  onPin: (pinned: boolean) => Promise<{ pinned: boolean }>;
}) {
  const [pinned, setPinned] = useState(initial);
  const [error, setError] = useState<string | null>(null);
  const toggle = () => {
    setError(null);
    onPin(!pinned).then(
      (r) => setPinned(r.pinned),
      (e: unknown) => setError(e instanceof Error ? e.message : String(e)),
    );
  };
  return (
    <>
      <button
        type="button"
        onClick={toggle}
        aria-pressed={pinned}
        data-testid="pin-run"
        title="A pinned run keeps its request rows and events when retention prunes old runs"
      >
        {pinned ? 'Unpin' : 'Pin'}
      </button>
      {error && (
        <span className="err" role="alert" data-testid="pin-run-error">
          {error}
        </span>
      )}
    </>
  );
}
