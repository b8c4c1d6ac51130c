/**
 * The run's exports, near the top of its page: Download evidence (everything
 * a bug report needs, in one file), then each export alone, Open in Perfetto
 * beside the trace; an export with nothing to hold is disabled and says why.
 */
import { useState } from 'react';
import { exportUrl } from '../api/rest.ts';
import { browserPerfettoDeps, openInPerfetto } from '../api/perfetto.ts';
import { exportChoices, type PerRequestData } from '../state/runData.ts';
import { href } from '../state/router.ts';

/** Open in Perfetto: the trace handed to ui.perfetto.dev from this page; what went wrong said beside it. */
function OpenInPerfetto({ id, disabledReason }: { id: string; disabledReason: string | null }) {
  const [state, setState] = useState<{ busy: boolean; error: string | null }>({ busy: false, error: null });
  const open = () => {
    setState({ busy: true, error: null });
    const name = `stallscope-${id}.trace.json`;
    openInPerfetto({ title: `stallscope run ${id}`, fileName: name }, browserPerfettoDeps(exportUrl(id, 'trace'))).then(
      () => setState({ busy: false, error: null }),
      (e: unknown) => setState({ busy: false, error: e instanceof Error ? e.message : String(e) }),
    );
  };
  return (
    <>
      <button
        type="button"
        onClick={open}
        disabled={disabledReason !== null || state.busy}
        aria-describedby="perfetto-how"
        data-testid="open-perfetto"
      >
        {state.busy ? 'Opening Perfetto…' : 'Open in Perfetto'}
      </button>
      {state.error && (
        <span className="err small" role="alert" data-testid="open-perfetto-error">
          {state.error}
        </span>
      )}
    </>
  );
}

export function ExportBar({ id, data }: { id: string; data: PerRequestData | null }) {
  const choices = exportChoices(data);
  const off = choices.filter((c) => c.disabledReason);
  const trace = choices.find((c) => c.format === 'trace')!;
  return (
    <div className="export-bar">
      <nav className="exports" aria-label="Export" data-testid="exports">
        <a
          className="button primary"
          href={exportUrl(id, 'evidence')}
          download
          data-testid="export-evidence"
          title="One JSON file: the run's config, metadata, verdict and story, every stall report and capture with its fingerprint, the per-request table, the vLLM result and the trace"
        >
          Download evidence
        </a>
        <span className="muted">Export</span>
        {choices.map((c) => [
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
          c.format === 'trace' && <OpenInPerfetto key="perfetto" id={id} disabledReason={trace.disabledReason} />,
        ])}
        <a className="button" href={href({ page: 'compare', ids: [id] })}>
          Compare with…
        </a>
      </nav>
      <p className="muted small" id="perfetto-how">
        Open in Perfetto opens ui.perfetto.dev in a new tab and hands it this run&apos;s trace from this page
        (Perfetto&apos;s postMessage protocol); the trace goes to no server. Offline, download the trace and open it
        there with &quot;Open trace file&quot;.
      </p>
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
