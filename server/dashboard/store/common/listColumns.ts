/**
 * The columns a runs-list row is read from, the same in both stores: the run's own columns and its stall evidence's
 * count and most frequent phase. `evidence` is the store's SQL condition (on stall_reports `s`) for a row that is
 * evidence — the one part whose JSON syntax differs between SQLite and PostgreSQL.
 */
export function listColumns(evidence: string): string {
  return `r.id, r.source, r.status, r.verdict, r.label, r.model, r.target, r.dataset, r.num_prompts,
  r.max_concurrency, r.request_rate, r.fail_fast, r.created_at_ms, r.started_at_ms, r.finished_at_ms, r.last_seq,
  r.state_json, r.summary_json, r.metadata_json,
  (SELECT COUNT(*) FROM stall_reports s WHERE s.run_id = r.id AND ${evidence}) AS stall_count,
  (SELECT s.phase FROM stall_reports s WHERE s.run_id = r.id AND ${evidence}
    GROUP BY s.phase ORDER BY COUNT(*) DESC, s.phase LIMIT 1) AS stall_phase`;
}
