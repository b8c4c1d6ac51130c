/** The compared runs' configurations key by key, differing keys marked (or only those shown). */
import type { configDiff } from '../../state/metricsTable.ts';

export function ConfigDiff({
  diff,
  onlyDiff,
  setOnlyDiff,
}: {
  diff: ReturnType<typeof configDiff>;
  onlyDiff: boolean;
  setOnlyDiff: (only: boolean) => void;
}) {
  const shown = onlyDiff ? diff.filter((d) => d.differs) : diff;
  return (
    <section className="panel">
      <h2>
        Configuration{' '}
        <label className="small">
          <input type="checkbox" checked={onlyDiff} onChange={(e) => setOnlyDiff(e.target.checked)} /> only differences
        </label>
      </h2>
      {shown.length === 0 ? (
        <p className="muted">{onlyDiff ? 'The configurations are the same.' : 'No configuration stored.'}</p>
      ) : (
        <table className="config-diff" data-testid="config-diff">
          <tbody>
            {shown.map((d) => (
              <tr key={d.key} className={d.differs ? 'differs' : ''}>
                <th>
                  <code>{d.key}</code>
                </th>
                {d.values.map((v, i) => (
                  <td key={i}>
                    <code>{v ?? '–'}</code>
                  </td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
