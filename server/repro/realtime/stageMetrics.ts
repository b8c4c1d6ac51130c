/**
 * The stage-0 engine metrics a realtime `response.done` carries
 * (docs/design.md#realtime), as vLLM-Omni's server reports its thinker's:
 * `num_tokens_out`, `vllm_ttft_ms` (response start → first token),
 * `vllm_itls_ms` (one interval per token after the first) and
 * `vllm_tpot_ms` (their mean). Measured from the thinker's own token times,
 * so they agree with the response's usage and with the transcript deltas the
 * client receives (one per token).
 */
const ms3 = (x: number) => Math.round(x * 1000) / 1000;

export interface Stage0Snapshot {
  num_tokens_out: number;
  vllm_ttft_ms: number;
  vllm_tpot_ms: number;
  vllm_itls_ms: number[];
}

export class Stage0Clock {
  private readonly tokenMs: number[] = [];

  constructor(private readonly startMs: number) {}

  /** A thinker token left at `atMs` (performance.now()). */
  token(atMs: number): void {
    this.tokenMs.push(atMs);
  }

  /** The snapshot for a response that produced `tokens` text tokens. */
  snapshot(tokens: number): Stage0Snapshot {
    const t = this.tokenMs;
    const itls: number[] = [];
    for (let i = 1; i < t.length; i++) itls.push(ms3(t[i] - t[i - 1]));
    const sum = itls.reduce((a, b) => a + b, 0);
    return {
      num_tokens_out: tokens,
      vllm_ttft_ms: t.length > 0 ? ms3(t[0] - this.startMs) : 0,
      vllm_tpot_ms: itls.length > 0 ? ms3(sum / itls.length) : 0,
      vllm_itls_ms: itls,
    };
  }
}
