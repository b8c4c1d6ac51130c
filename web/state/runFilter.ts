/** What the runs list (and the Compare picker) asks the server for: the query of `GET /api/runs`. */
export interface RunFilter {
  q?: string;
  verdict?: string;
  status?: string;
  /** `key=value` pairs matched against run metadata. */
  metadata?: string[];
  /** Happened from / before: epoch ms or a date such as `2026-04-01`. */
  since?: string;
  until?: string;
  limit?: number;
  offset?: number;
}
