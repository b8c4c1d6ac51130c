/** The filter bar over the runs: verdict, free text, metadata pairs, and Compare for the selected runs. */
import type { RunFilter } from '../../api/rest.ts';
import { navigate, type RunsQuery } from '../../state/router.ts';
import { humanVerdict } from '../../state/verdictWords.ts';
import { SearchField } from '../../components/SearchField.tsx';

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
      <SearchField
        label="Search"
        value={text}
        onChange={setText}
        placeholder="id, label, model, target"
        testId="filter-text"
      />
      <SearchField
        label="Metadata"
        value={meta}
        onChange={setMeta}
        placeholder="ci_build=14607 ci_node=mi325-agent-2"
        testId="filter-meta"
      />
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
