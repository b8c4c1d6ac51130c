/**
 * The stall board's runs from their rows and their stall rows (both stores
 * read the same columns): each stall report fingerprinted — from its stored
 * fingerprint, or from the report when it was stored before fingerprints were
 * — and each run's first structural timeout.
 */
import type { BoardRun, StallEvidence } from '../../../../shared/stalls/stallBoard.ts';
import type { StallFingerprint } from '../../../../shared/stalls/fingerprint.ts';
import type { StallReport } from '../../../../shared/stalls/stallReport.ts';
import {
  keyRef,
  reportFingerprint,
  timeoutEvidence,
  type FirstTimeout,
} from '../../../../shared/stalls/stallEvidence.ts';

export interface BoardRunRow {
  id: string;
  at_ms: number;
  verdict: string | null;
  status: string;
  label: string | null;
  metadata_json: string;
  first_timeout_json: string | null;
}

export interface BoardStallRow {
  run_id: string;
  worker_id: number;
  op_id: number;
  fingerprint_json: string | null;
  report_json: string | null;
}

/** The board's runs from their rows and their stall rows (both stores read the same columns). */
export function boardFromRows(rows: BoardRunRow[], stalls: BoardStallRow[]): BoardRun[] {
  const evidence = new Map<string, StallEvidence[]>();
  for (const s of stalls) {
    const fp: StallFingerprint = s.fingerprint_json
      ? (JSON.parse(s.fingerprint_json) as StallFingerprint)
      : reportFingerprint(JSON.parse(s.report_json!) as StallReport);
    const list = evidence.get(s.run_id) ?? [];
    list.push({
      kind: s.worker_id === -1 ? 'py-spy' : 'watchdog',
      ref: keyRef({ workerId: s.worker_id, opId: s.op_id }),
      ...fp,
    });
    evidence.set(s.run_id, list);
  }
  return rows.map((r): BoardRun => {
    const ev = evidence.get(r.id) ?? [];
    if (r.first_timeout_json) ev.push(timeoutEvidence(JSON.parse(r.first_timeout_json) as FirstTimeout));
    return {
      id: r.id,
      atMs: r.at_ms,
      verdict: r.verdict,
      status: r.status,
      label: r.label,
      metadata: JSON.parse(r.metadata_json) as Record<string, string>,
      evidence: ev,
    };
  });
}
