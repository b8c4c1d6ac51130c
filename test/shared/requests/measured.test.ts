/**
 * One rule for which per-request values exist, shared by the CSV and the run page's request panel (the
 * panel said "audio duration 0 s" where the CSV was blank).
 */
import { describe, expect, it } from 'vitest';
import { measuredOf } from '#shared/requests/measured.ts';
import { requestTable } from '#server/dashboard/export/requestTable.ts';
import type { RequestRow } from '#shared/protocol/apiSchemas.ts';

const row = (over: Partial<RequestRow>): RequestRow => ({
  index: 0,
  requestId: 'r0',
  status: 'completed',
  queuedT: 0,
  sentT: 0.9,
  firstTokenT: 10.1,
  firstAudioT: 40,
  endT: 900,
  ttftS: 0.0092,
  e2elS: 0.9,
  audioTtfpS: 0.039,
  audioDurationS: 2.5,
  outputTokens: 12,
  promptLen: 30,
  attempts: 1,
  error: '',
  timeoutKind: null,
  ...over,
});

describe('measured values', () => {
  it('a value never measured is null (blank, "–"), never 0', () => {
    const timedOut = row({ status: 'timed_out', firstAudioT: null, e2elS: 0, audioTtfpS: 0, audioDurationS: 0 });
    expect(measuredOf(timedOut)).toEqual({ ttftS: 0.0092, e2elS: null, audioTtfpS: null, audioDurationS: null });
    expect(measuredOf(row({}))).toEqual({ ttftS: 0.0092, e2elS: 0.9, audioTtfpS: 0.039, audioDurationS: 2.5 });
  });

  it('the CSV writes exactly what the panel shows', () => {
    const rows = [row({}), row({ index: 1, status: 'failed', firstTokenT: null, firstAudioT: null, ttftS: 0 })];
    const t = requestTable(rows, { ops: {}, opsByRequest: {} }, {});
    const col = (name: string) => t.rows.map((r) => r[t.columns.indexOf(name)]);
    for (const [csv, key] of [
      ['ttft_s', 'ttftS'],
      ['e2el_s', 'e2elS'],
      ['audio_ttfp_s', 'audioTtfpS'],
      ['audio_duration_s', 'audioDurationS'],
    ] as const)
      expect(col(csv), csv).toEqual(rows.map((r) => measuredOf(r)[key]));
    expect(col('audio_duration_s')).toEqual([2.5, null]);
  });
});
