/** The run's exports, near the top of its page; an export with nothing to hold is disabled and says why. */
import { exportUrl } from '../api/rest.ts';
import { exportChoices, type PerRequestData } from '../state/runData.ts';
import { href } from '../state/router.ts';

export function ExportBar({ id, data }: { id: string; data: PerRequestData | null }) {
  return (
    <nav className="exports" aria-label="Export" data-testid="exports">
      <span className="muted">Export</span>
      {exportChoices(data).map((c) =>
        c.disabledReason ? (
          <span key={c.format} className="export-off" data-testid={`export-${c.format}`} data-disabled="true">
            <button type="button" disabled aria-describedby={`export-${c.format}-why`} title={c.disabledReason}>
              {c.label}
            </button>
            <small id={`export-${c.format}-why`} className="muted">
              {c.disabledReason}
            </small>
          </span>
        ) : (
          <a
            key={c.format}
            className="button"
            href={exportUrl(id, c.format)}
            download
            data-testid={`export-${c.format}`}
            data-disabled="false"
          >
            {c.label}
          </a>
        ),
      )}
      <a className="button" href={href({ page: 'compare', ids: [id] })}>
        Compare with…
      </a>
    </nav>
  );
}
