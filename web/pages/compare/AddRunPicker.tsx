/** "Add a run": a recent run not yet compared joins the comparison. */
import type { RunListItem } from '../../../shared/apiSchemas.ts';
import { navigate } from '../../state/router.ts';
import { humanVerdict } from '../../state/verdictWords.ts';

export function AddRunPicker({ ids, others }: { ids: string[]; others: readonly RunListItem[] }) {
  return (
    <label className="add-run">
      Add a run{' '}
      <select
        value=""
        onChange={(e) => e.target.value && navigate({ page: 'compare', ids: [...ids, e.target.value] })}
        data-testid="compare-add"
      >
        <option value="">choose…</option>
        {others
          .filter((o) => !ids.includes(o.id))
          .map((o) => (
            <option key={o.id} value={o.id}>{`${o.label || o.id} — ${humanVerdict(o.verdict ?? o.status)}`}</option>
          ))}
      </select>
    </label>
  );
}
