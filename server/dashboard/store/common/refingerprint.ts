/**
 * Stored fingerprints recomputed under today's encoding (shared/stalls/fingerprint.ts `FINGERPRINT_ENCODING`),
 * so runs stored before a change of encoding group with new runs of the same stall on the board. Both stores'
 * migrations call these over every stall report and every run's first timeout (sqlite/migrations.ts,
 * pg/pgMigrations.ts): pure, one row at a time, the same for both.
 */
import type { StallReport } from '../../../../shared/stalls/stallReport.ts';
import { firstTimeout, type FirstTimeout } from '../../../../shared/stalls/stallEvidence.ts';
import { fingerprintColumns } from './effects.ts';

/** A stall report row's fingerprint columns from its stored report. */
export function reportFingerprintColumns(reportJson: string): { fingerprint: string; json: string } {
  return fingerprintColumns(JSON.parse(reportJson) as StallReport);
}

/** A run's stored first timeout with its (phase-only) fingerprint recomputed. */
export function refingerprintedTimeout(firstTimeoutJson: string): string {
  const t = JSON.parse(firstTimeoutJson) as FirstTimeout;
  return JSON.stringify(firstTimeout(t.index, t.requestId, t.kind, t.t, t.phase));
}
