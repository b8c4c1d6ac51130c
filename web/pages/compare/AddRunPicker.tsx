/**
 * "Add a run": search the stored runs by id, label, metadata (free text, or
 * exact `key=value`) and the dates they happened between, newest first by when
 * they happened; a found run joins the comparison. Collapsed to one button until asked for (open at once on an
 * empty Compare, where adding runs is all there is to do): the list took ~250 px above the comparison, and the
 * search is not run before it is opened.
 */
import { useEffect, useState } from 'react';
import type { RunListItem } from '../../../shared/protocol/apiSchemas.ts';
import { listRuns } from '../../api/rest.ts';
import { pickerFilter, pickerLine } from '../../state/comparePicker.ts';
import { navigate } from '../../state/router.ts';
import { SearchField } from '../../components/SearchField.tsx';
import '../../styles/compare.css';

export function AddRunPicker({ ids }: { ids: string[] }) {
  const [open, setOpen] = useState(ids.length === 0);
  if (!open)
    return (
      <button type="button" onClick={() => setOpen(true)} aria-expanded={false} data-testid="compare-add-open">
        Add a run…
      </button>
    );
  return <PickerSearch ids={ids} close={ids.length > 0 ? () => setOpen(false) : null} />;
}

function PickerSearch({ ids, close }: { ids: string[]; close: (() => void) | null }) {
  const [text, setText] = useState('');
  const [since, setSince] = useState('');
  const [until, setUntil] = useState('');
  const [found, setFound] = useState<{ runs: RunListItem[]; total: number } | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    let current = true;
    // Typing does not fire a request per key.
    const id = setTimeout(() => {
      listRuns(pickerFilter(text, since, until)).then(
        (r) => current && (setFound(r), setError(null)),
        (e: Error) => current && setError(e.message),
      );
    }, 200);
    return () => {
      current = false;
      clearTimeout(id);
    };
  }, [text, since, until]);
  const shown = (found?.runs ?? []).filter((r) => !ids.includes(r.id));
  return (
    <div className="add-run" role="search" data-testid="compare-picker">
      <SearchField
        label="Add a run"
        value={text}
        onChange={setText}
        placeholder="id, label, metadata, or key=value"
        testId="compare-search"
      />{' '}
      <label>
        from <input type="date" value={since} onChange={(e) => setSince(e.target.value)} data-testid="compare-since" />
      </label>{' '}
      <label>
        before{' '}
        <input type="date" value={until} onChange={(e) => setUntil(e.target.value)} data-testid="compare-until" />
      </label>{' '}
      {close && (
        <button type="button" onClick={close} aria-expanded={true} data-testid="compare-add-close">
          Close
        </button>
      )}
      {error && <p className="err">{error}</p>}
      <ul className="picker-results" data-testid="compare-results" aria-live="polite">
        {found && shown.length === 0 && <li className="muted">No other run matches.</li>}
        {shown.map((r) => (
          <li key={r.id}>
            <button
              type="button"
              className="link"
              onClick={() => navigate({ page: 'compare', ids: [...ids, r.id] })}
              data-testid="compare-result"
              data-run-id={r.id}
            >
              {pickerLine(r)}
            </button>{' '}
            <code className="muted">{r.id}</code>
          </li>
        ))}
        {found && found.total > found.runs.length && (
          <li className="muted">{found.total - found.runs.length} more: narrow the search.</li>
        )}
      </ul>
    </div>
  );
}
