/**
 * Every human label of the requests a stop cancelled names the rule that stopped the run: the shared rule,
 * the run page's cards and request panel, and the CLI's summary. The vLLM status and result key stay
 * `cancelled_after_timeout`.
 */
import { describe, expect, it } from 'vitest';
import type { StoppedBy } from '#shared/config/stopRules.ts';
import { stopCancelLabel } from '#shared/requests/stopLabel.ts';
import { emptyCounts } from '#shared/requests/outcomes.ts';
import { endingText, outcomeCards } from '#shared/runView/runStory.ts';
import type { RequestView } from '#shared/runView/runModel.ts';
import { formatSummary } from '#server/engine/results/summary.ts';

const stop = (kind: StoppedBy['kind'], rule: string): StoppedBy => ({
  kind,
  rule,
  atS: 2,
  value: 3,
  requests: [],
  omitted: 0,
});
const ERRORS = stop('errors', 'errors>=3');
const SILENT = stop('no_progress', 'no_progress>=3s');
const TIMEOUT = stop('timeouts', 'timeouts>=1');

describe('the label of the requests a stop cancelled', () => {
  it('names the rule that stopped the run; a timeout stop keeps "cancelled after timeout"', () => {
    expect(stopCancelLabel(ERRORS)).toBe('stopped by errors>=3');
    expect(stopCancelLabel(SILENT)).toBe('stopped: no progress for 3 s');
    expect(stopCancelLabel(stop('error_rate', 'error_rate>0.2,window=50'))).toBe('stopped by error_rate>0.2,window=50');
    expect(stopCancelLabel(TIMEOUT)).toBe('cancelled after timeout');
    expect(stopCancelLabel(null)).toBe('cancelled after timeout');
  });

  it("on the run page's cards and in the request panel's outcome", () => {
    const c = { ...emptyCounts(20), completed: 5, failed: 15, errored: 3, cancelledAfterTimeout: 12, unsent: 4 };
    const label = (s: StoppedBy | null) =>
      outcomeCards(c, undefined, s).find((k) => k.id === 'cancelled_after_timeout');
    expect(label(ERRORS)).toMatchObject({ label: 'stopped by errors>=3', value: 12 });
    expect(label(SILENT)?.label).toBe('stopped: no progress for 3 s');
    expect(label(TIMEOUT)?.label).toBe('cancelled after timeout');
    const row = { status: 'cancelled_after_timeout', endT: 2000, sentT: 1000 } as RequestView;
    expect(endingText(row, SILENT)).toBe('ran 1.00 s, then cancelled: stopped: no progress for 3 s');
    expect(endingText(row, TIMEOUT)).toBe('ran 1.00 s, then cancelled by the fail-fast breaker after a timeout');
  });

  it("in the CLI's summary; the result key is unchanged", () => {
    const result = {
      completed: 5,
      failed: 15,
      fail_fast_enabled: false,
      fail_fast_tripped: true,
      cancelled_after_timeout_requests: 12,
      stopped_by: { kind: 'errors', rule: 'errors>=3', at_s: 2, value: 3, requests: [], omitted: 0 },
    };
    const text = formatSummary(result);
    expect(text).toMatch(/^Cancelled, stopped by errors>=3: +12 *$/m);
    expect(text).not.toMatch(/Cancelled after timeout/);
    expect(formatSummary({ ...result, stopped_by: null })).toMatch(/^Cancelled after timeout.*: +12 *$/m);
  });
});
