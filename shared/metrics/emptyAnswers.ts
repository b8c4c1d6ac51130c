/**
 * A request counted `completed` although nothing streamed back: no token, no
 * audio, no first-token time. That is what vLLM's client records for a 200
 * answer that is not an event stream (an HTML error page, a proxy's JSON, an
 * empty body): it never fails a request it could not read. A run holding such
 * requests did not show the server working, so it is never `passed`.
 */
import type { Verdict } from '../types.ts';

export interface AnswerShape {
  status: string;
  ttftS: number;
  outputTokens: number;
  audioDurationS?: number;
  audioTtfpS?: number;
}

export function isEmptyCompletion(r: AnswerShape): boolean {
  return (
    r.status === 'completed' &&
    r.ttftS === 0 &&
    r.outputTokens === 0 &&
    (r.audioDurationS ?? 0) === 0 &&
    (r.audioTtfpS ?? 0) === 0
  );
}

/** `passed` with `n` empty completions becomes `failed`, saying why; any other verdict stands. */
export function withEmptyCompletions(
  verdict: Verdict,
  reasons: readonly string[],
  n: number,
): { verdict: Verdict; reasons: string[] } {
  if (n === 0) return { verdict, reasons: [...reasons] };
  const why = `${n} request${n === 1 ? '' : 's'} counted completed with nothing streamed back (no token, no audio): a 200 answer that was not an event stream`;
  if (verdict !== 'passed') return { verdict, reasons: [...reasons, why] };
  return { verdict: 'failed', reasons: [why, ...reasons.filter((r) => !/^all \d+ requests completed$/.test(r))] };
}
