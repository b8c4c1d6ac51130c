/** The sticky action bar: Start run, Reset, and how many errors remain. */
import { CUSTOM } from '../../state/customPreset.ts';

export function FormActions({
  busy,
  presetId,
  reset,
  errorCount,
}: {
  busy: boolean;
  presetId: string;
  reset: () => void;
  errorCount: number;
}) {
  return (
    <div className="actions sticky-actions" data-testid="form-actions">
      <button type="submit" className="primary" disabled={busy} data-testid="start-run">
        {busy ? 'Starting…' : 'Start run'}
      </button>
      <button type="button" onClick={reset} data-testid="reset-preset">
        {presetId === CUSTOM.id ? 'Reset to defaults' : 'Reset to preset'}
      </button>
      {errorCount > 0 && (
        <span className="field-error">
          {errorCount} error{errorCount > 1 ? 's' : ''}
        </span>
      )}
    </div>
  );
}
