/**
 * Which of a request's per-request metrics exist, one rule for the CSV (server/dashboard/export/requestTable.ts) and
 * the run page's request panel: a value that was never measured is null — a blank cell, "–" on the page — never 0.
 * The result's fields hold 0 for "not measured" (vLLM's units): a request that did not complete has no E2E latency
 * or audio duration; one that got no first token no TTFT, no first audio no TTFP.
 */

export interface MeasuredInput {
  status: string;
  /** Run-clock ms of the first token / audio (null: none came). */
  firstTokenT: number | null;
  firstAudioT: number | null;
  ttftS: number;
  e2elS: number;
  audioTtfpS: number;
  audioDurationS: number;
}

export interface Measured {
  ttftS: number | null;
  e2elS: number | null;
  audioTtfpS: number | null;
  audioDurationS: number | null;
}

export function measuredOf(r: MeasuredInput): Measured {
  const completed = r.status === 'completed';
  return {
    ttftS: completed || r.firstTokenT !== null ? r.ttftS : null,
    e2elS: completed ? r.e2elS : null,
    audioTtfpS: completed || r.firstAudioT !== null ? r.audioTtfpS : null,
    audioDurationS: completed ? r.audioDurationS : null,
  };
}
