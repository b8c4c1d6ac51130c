/** Large, realistic inputs for the freeze tests and the dashboard benchmark. */

/** A vLLM `--save-result --save-detailed` file with `n` requests (400,000 → about 28 MB). */
export function bigVllmResult(n: number): string {
  const ins: number[] = [];
  const outs: number[] = [];
  const ttfts: string[] = [];
  const starts: string[] = [];
  const itls: string[] = [];
  const texts: string[] = [];
  const errors: string[] = [];
  for (let i = 0; i < n; i++) {
    ins.push(32);
    outs.push(3);
    ttfts.push((0.01 + (i % 97) / 1000 + i * 1e-11).toFixed(9));
    starts.push((1_700_000_000 + i / 100).toFixed(6));
    itls.push(`[${(0.002 + (i % 13) / 10000).toFixed(7)}, 0.00213]`);
    texts.push('"abcd"');
    errors.push('""');
  }
  return (
    `{"date": "20260401-184218", "backend": "openai-chat-omni", "model_id": "openbmb/MiniCPM-o-4_5", ` +
    `"num_prompts": ${n}, "request_rate": Infinity, "max_concurrency": 10, "duration": ${n / 100}, ` +
    `"completed": ${n}, "failed": 0, "mean_ttft_ms": NaN, ` +
    `"input_lens": [${ins.join(', ')}], "output_lens": [${outs.join(', ')}], "ttfts": [${ttfts.join(', ')}], ` +
    `"start_times": [${starts.join(', ')}], "itls": [${itls.join(', ')}], ` +
    `"generated_texts": [${texts.join(', ')}], "errors": [${errors.join(', ')}]}`
  );
}

/** NDJSON telemetry of `bytes` size: c2w.phase lines naming request ids of `runId`. */
export function bigIngest(runId: string, bytes: number, bad = false): string {
  const lines: string[] = [];
  let size = 0;
  for (let i = 0; size < bytes; i++) {
    const line = bad
      ? `{"v": 1, "ts": ${i}, "type": "c2w.phase", "workerId": "zero", "opId": ${i}, "requestIds": ["${runId}-${i % 1000}"]}`
      : JSON.stringify({
          v: 1,
          ts: 1_000_000 + i,
          type: 'c2w.phase',
          workerId: 0,
          opId: i,
          requestIds: [`${runId}-${i % 1000}`],
          phase: 'cfm',
          details: { step: i % 10, steps: 10 },
        });
    lines.push(line);
    size += line.length + 1;
  }
  return `${lines.join('\n')}\n`;
}
