/**
 * What one live event asks the store to keep beside the event itself, and
 * the columns a stall report is stored with: the same for both stores' live
 * writers (sqlite/writer.ts, pg/pgWriter.ts).
 */
import type { RequestRow } from '../../../../shared/protocol/apiSchemas.ts';
import type { StallReport } from '../../../../shared/types.ts';
import { reportFingerprint, type FirstTimeout } from '../../../../shared/stalls/stallEvidence.ts';
import type { ServerIdentity } from '../../../../shared/runInfo/serverIdentity.ts';
import type { EndedRange } from '../../../../shared/requests/endedRange.ts';

/**
 * What one event asks the store to keep beside the event itself: an ended request's row, a stall report
 * (with its fingerprint), a recovery, the run's first structural timeout, the target's identity.
 */
export interface Effects {
  endedRow?: RequestRow;
  /** Requests that ended together, stored as one range (docs/design.md#bulk-unsent). */
  endedRange?: EndedRange;
  stall?: StallReport;
  recovered?: { workerId: number; opId: number; stalledS: number; ts: number };
  firstTimeout?: FirstTimeout;
  serverIdentity?: ServerIdentity;
}

/** The fingerprint columns of a stall report row. */
export function fingerprintColumns(r: StallReport): { fingerprint: string; json: string } {
  const fp = reportFingerprint(r);
  return { fingerprint: fp.fingerprint, json: JSON.stringify(fp) };
}
