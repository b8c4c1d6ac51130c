/** A watchdog report's details table and the requests its op was decoding (click to find one on the timeline). */
import type { WatchdogStallReport } from '../../../shared/stalls/stallReport.ts';
import type { RunModel } from '../../../shared/runView/runModel.ts';
import { count, dateTime } from '../../../shared/format.ts';

export function StallDetails({
  report: r,
  indexById,
  onFindRequest,
}: {
  report: WatchdogStallReport;
  indexById: RunModel['indexById'];
  onFindRequest: (id: string) => void;
}) {
  return (
    <div>
      <h3>Details</h3>
      <table className="kv">
        <tbody>
          <tr>
            <th>time in op</th>
            <td>{r.inOpS.toFixed(2)} s at capture</td>
          </tr>
          <tr>
            <th>captured</th>
            <td>{dateTime(r.capturedAtMs)}</td>
          </tr>
          {Object.entries(r.details).map(([k, v]) => (
            <tr key={k}>
              <th>{k}</th>
              <td>{String(v)}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <h3>Affected requests ({count(r.requestIds.length)})</h3>
      <ul className="req-list">
        {r.requestIds.map((id) => (
          <li key={id}>
            <button type="button" className="link" onClick={() => onFindRequest(id)} data-testid="stall-request">
              {indexById[id] !== undefined ? `#${indexById[id]} ` : ''}
              {id}
            </button>
          </li>
        ))}
      </ul>
    </div>
  );
}
