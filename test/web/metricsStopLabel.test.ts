/**
 * The metrics table's row of the requests a stop cancelled: the key stays vLLM's `cancelled_after_timeout_requests`,
 * the label names the rule that stopped the run, as the counters and the CLI summary do.
 */
import { describe, expect, it } from 'vitest';
import type { StopLike } from '#shared/requests/stopLabel.ts';
import { metricSections, type Metrics } from '#web/state/metricsTable.ts';

const ERRORS: StopLike = { kind: 'errors', rule: 'errors>=3' };
const STALLED: StopLike = { kind: 'no_progress', rule: 'no_progress>=3s' };

function cancelledRow(results: Metrics[], stops?: StopLike[]) {
  const rows = metricSections(results, stops).flatMap((s) => s.rows);
  return rows.find((r) => r.key === 'cancelled_after_timeout_requests')!;
}

describe('the metrics row of stop-cancelled requests', () => {
  const stopped = { completed: 3, cancelled_after_timeout_requests: 12 };

  it('a rule stop names the rule; the key and its value stay', () => {
    expect(cancelledRow([stopped], [ERRORS])).toMatchObject({
      key: 'cancelled_after_timeout_requests',
      label: 'Stopped by errors>=3',
    });
    expect(cancelledRow([stopped], [ERRORS]).title).toContain('no timeout fired');
    expect(cancelledRow([stopped], [STALLED]).label).toBe('Stopped: no progress for 3 s');
  });

  it('a timeout stop, or none known, keeps "Cancelled after timeout"', () => {
    expect(cancelledRow([stopped], [null]).label).toBe('Cancelled after timeout');
    expect(cancelledRow([stopped], [{ kind: 'timeouts', rule: 'timeouts>=1' }]).label).toBe('Cancelled after timeout');
    expect(cancelledRow([stopped]).label).toBe('Cancelled after timeout');
  });

  it('Compare: a run that cancelled nothing does not blur the label; two rules share a neutral one', () => {
    const passed = { completed: 15, cancelled_after_timeout_requests: 0 };
    expect(cancelledRow([passed, stopped], [null, ERRORS]).label).toBe('Stopped by errors>=3');
    const mixed = cancelledRow([stopped, stopped], [ERRORS, STALLED]);
    expect(mixed.label).toBe('Cancelled when the run stopped');
    expect(mixed.title).toContain('errors>=3');
    expect(mixed.title).toContain('no_progress>=3s');
  });
});
