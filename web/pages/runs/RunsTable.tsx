/** The table of saved runs; delete asks for confirmation in place. */
import { useState } from 'react';
import type { RunListItem } from '../../../shared/protocol/apiSchemas.ts';
import { RunRow } from './RunRow.tsx';

export function RunsTable({
  runs,
  selected,
  onToggle,
  onDelete,
}: {
  runs: RunListItem[];
  selected: string[];
  onToggle: (id: string) => void;
  /** null: this token may not delete (no delete column at all). */
  onDelete: ((id: string) => void) | null;
}) {
  // One confirmation at a time, across the rows.
  const [confirming, setConfirming] = useState<string | null>(null);
  return (
    <div className="table-wrap">
      <table className="runs" data-testid="runs-table">
        <RunsTableHead actions={onDelete !== null} />
        <tbody>
          {runs.map((r) => (
            <RunRow
              key={r.id}
              run={r}
              selected={selected.includes(r.id)}
              onToggle={onToggle}
              confirming={confirming === r.id}
              setConfirming={setConfirming}
              onDelete={onDelete}
            />
          ))}
        </tbody>
      </table>
    </div>
  );
}

function RunsTableHead({ actions }: { actions: boolean }) {
  return (
    <thead>
      <tr>
        <th>
          <span className="sr-only">Select</span>
        </th>
        <th>Run</th>
        <th>Verdict</th>
        <th>Started</th>
        <th>Target · dataset</th>
        <th className="num">Conc. · rate</th>
        <th>Fail-fast</th>
        <th className="num" title="completed / failed (every request that did not complete), then the parts of failed">
          Counts
          <div className="muted small">completed / failed</div>
        </th>
        <th className="num">Duration</th>
        <th>Stalls</th>
        {actions && (
          <th>
            <span className="sr-only">Actions</span>
          </th>
        )}
      </tr>
    </thead>
  );
}
