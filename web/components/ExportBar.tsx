/** The run's exports, near the top of its page; an export with nothing to hold is disabled and says why. */
import { exportUrl } from '../api/rest.ts';
import { exportChoices, type PerRequestData } from '../state/runData.ts';
import { href } from '../state/router.ts';

export function ExportBar({ id, data }: { id: string; data: PerRequestData | null }) {
  const choices = exportChoices(data);
  const off = choices.filter((c) => c.disabledReason);
  return (
    <div className="export-bar">
      <nav className="exports" aria-label="Export" data-testid="exports">
        <span className="muted">Export</span>
        {choices.map((c) =>
          c.disabledReason ? (
            <button
              key={c.format}
              type="button"
              disabled
              aria-describedby={`export-why-${c.format}`}
              data-testid={`export-${c.format}`}
              data-disabled="true"
            >
              {c.label}
            </button>
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
      {off.length > 0 && (
        <ul className="export-why muted small">
          {off.map((c) => (
            <li key={c.format} id={`export-why-${c.format}`}>
              {c.label}: {c.disabledReason}
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
