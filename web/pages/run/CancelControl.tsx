/** Cancel, which asks first: in-flight requests are aborted and queued ones never sent. */
import { useState } from 'react';

export function CancelControl({ onCancel }: { onCancel: () => void }) {
  const [confirming, setConfirming] = useState(false);
  return confirming ? (
    <span className="confirm" role="group" aria-label="Confirm cancel">
      <span>Cancel the run? In-flight requests are aborted, queued ones never sent.</span>
      <button
        type="button"
        className="danger"
        data-testid="confirm-cancel"
        onClick={() => {
          setConfirming(false);
          onCancel();
        }}
      >
        Cancel the run
      </button>
      <button type="button" data-testid="keep-running" onClick={() => setConfirming(false)} autoFocus>
        Keep running
      </button>
    </span>
  ) : (
    <button type="button" className="danger" onClick={() => setConfirming(true)} data-testid="cancel-run">
      Cancel run…
    </button>
  );
}
