/** The filter bar over the runs: verdict, free text, metadata pairs, and Compare for the selected runs. */
import type { RunFilter } from '../../api/rest.ts';
import { navigate, type RunsQuery } from '../../state/router.ts';
import { humanVerdict } from '../../state/verdictWords.ts';

const VERDICTS = ['', 'passed', 'failed', 'failed_closed', 'errored', 'interrupted'];

interface RunFiltersProps {
  filter: RunFilter;
  go: (change: RunsQuery) => void;
  text: string;
  setText: (t: string) => void;
  meta: string;
  setMeta: (m: string) => void;
  selected: string[];
}

export function RunFilters({ filter, go, text, setText, meta, setMeta, selected }: RunFiltersProps) {
  return (
    <div className="filters" role="search">
      <label>
        Verdict{' '}
        <select
          value={filter.verdict ?? ''}
          onChange={(e) => go({ verdict: e.target.value || undefined })}
          data-testid="filter-verdict"
        >
          {VERDICTS.map((v) => (
            <option key={v} value={v}>
              {v ? humanVerdict(v) : 'any'}
            </option>
          ))}
        </select>
      </label>
      <label>
        Search{' '}
        <input
          type="search"
          value={text}
          onChange={(e) => setText(e.target.value)}
          placeholder="id, label, model, target"
          data-testid="filter-text"
        />
      </label>
      <label>
        Metadata{' '}
        <input
          type="search"
          value={meta}
          onChange={(e) => setMeta(e.target.value)}
          placeholder="build=123 node=mi300-7"
        />
      </label>
      <span className="spacer" />
      <button
        type="button"
        disabled={selected.length < 2}
        onClick={() => navigate({ page: 'compare', ids: selected })}
        data-testid="compare-selected"
      >
        Compare {selected.length >= 2 ? `${selected.length} runs` : '(select 2+)'}
      </button>
    </div>
  );
}
