/**
 * Result files compare as Python's do: every key vLLM writes as a float is
 * written with Python's float repr (`1.0`, `192.0`, `1e-05`), checked against
 * Python itself (the repository's .venv) and, key by key, against the real
 * vLLM result files in test/fixtures/vllm-results.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseResultText, pyFloatRepr, pyJsonDumps } from '#shared/vllmResult/pyJson.ts';
import { resultFloatKind } from '#shared/vllmResult/floatKeys.ts';
import { buildResultJson } from '#shared/vllmResult/resultJson.ts';
import { runPython } from '#test/helpers/venvPython.ts';

const FIXTURES = resolve(import.meta.dirname, '../../fixtures/vllm-results');

/** IEEE-754 bits of `x` as 16 hex digits: passes the exact value to Python. */
function bits(x: number): string {
  const view = new DataView(new ArrayBuffer(8));
  view.setFloat64(0, x);
  return view.getBigUint64(0).toString(16).padStart(16, '0');
}

/** Python's repr of each value, one per line. */
function pythonReprs(xs: number[]): string[] {
  const script = [
    'import sys, struct',
    'for h in sys.stdin.read().split():',
    "    print(repr(struct.unpack('>d', bytes.fromhex(h))[0]))",
  ].join('\n');
  return runPython(script, xs.map(bits).join('\n')).trim().split('\n');
}

/**
 * The type tree Python's `json.loads` gives each top-level key of each object in
 * `text` (`float`, `int`, `str`, `NoneType`, `list[float]`, `list[list[float]]`,
 * `dict{k: type}`), as JSON: one object per JSON value in the file.
 */
function pythonTypes(texts: string[]): Record<string, string>[][] {
  const script = `
import json, sys
def t(v):
    if isinstance(v, list):
        inner = sorted({t(x) for x in v})
        return 'list[' + '|'.join(inner) + ']'
    if isinstance(v, dict):
        return 'dict{' + ', '.join(k + ': ' + t(x) for k, x in v.items()) + '}'
    return type(v).__name__
out = []
for text in json.load(sys.stdin):
    dec, i, objs = json.JSONDecoder(), 0, []
    while i < len(text):
        while i < len(text) and text[i].isspace(): i += 1
        if i >= len(text): break
        o, i = dec.raw_decode(text, i)
        objs.append({k: t(v) for k, v in o.items()})
    out.append(objs)
print(json.dumps(out))
`;
  return JSON.parse(runPython(script, JSON.stringify(texts)));
}

describe('pyFloatRepr', () => {
  it('writes every double exactly as Python repr does (property, checked by Python itself)', () => {
    const edge = [
      1, 192, -0, 0, 1e-5, 1e-4, 0.0001234, 1e16, 9999999999999998, 1.5e16, 1e21, 1e22, 5e-324, 1.7976931348623157e308,
      0.1, -2.5, 123456.789,
    ];
    const sampled = fc.sample(fc.double({ noNaN: true, noDefaultInfinity: true }), { numRuns: 2000, seed: 11 });
    const wholes = fc.sample(fc.integer({ min: -1e9, max: 1e9 }), { numRuns: 300, seed: 12 });
    const values = [...edge, ...sampled, ...wholes];
    const expected = pythonReprs(values);
    const mismatches = values
      .map((x, i) => ({ x, ours: pyFloatRepr(x), python: expected[i] }))
      .filter((m) => m.ours !== m.python);
    expect(mismatches.slice(0, 5)).toEqual([]);
  });

  it('round-trips and always reads back as a float (a "." or an exponent)', () => {
    fc.assert(
      fc.property(fc.double({ noNaN: true, noDefaultInfinity: true }), (x) => {
        const s = pyFloatRepr(x);
        expect(Object.is(Number(s), x)).toBe(true);
        expect(s).toMatch(/[.e]/);
      }),
      { numRuns: 5000 },
    );
  });
});

describe('result files: types key by key as vLLM writes them', () => {
  const files = readdirSync(FIXTURES).filter((f) => f.endsWith('.json'));

  it('re-writing each real vLLM result file gives every key the type vLLM gave it', () => {
    const originals = files.map((f) => readFileSync(join(FIXTURES, f), 'utf8'));
    // What the exporter does with an imported file: parse (ints and floats become JS numbers), write.
    const rewritten = originals.map((text) =>
      parseResultText(text)
        .map((o) => pyJsonDumps(o, resultFloatKind))
        .join('\n'),
    );
    const [before, after] = [pythonTypes(originals), pythonTypes(rewritten)];
    let compared = 0;
    files.forEach((f, i) => {
      expect(after[i].length, f).toBe(before[i].length);
      before[i].forEach((types, j) => {
        for (const key of Object.keys(types)) {
          expect({ file: f, object: j, key, type: after[i][j][key] }).toEqual({
            file: f,
            object: j,
            key,
            type: types[key],
          });
          compared++;
        }
      });
    });
    expect(compared).toBeGreaterThan(500);
  });

  it('a result built from whole-valued measurements writes them as Python floats', () => {
    const rec = {
      success: true,
      error: '',
      ttft: 1,
      itl: [2, 0.5],
      outputTokens: 3,
      promptLen: 10,
      generatedText: 'abc',
      audioDuration: 0,
      audioFrames: 0,
      startTime: 4,
      latency: 5,
      audioTtfp: 0,
      audioRtf: 0,
      textLatency: 5,
    };
    const out = buildResultJson({
      date: '20260801-101500',
      backend: 'openai-chat-omni',
      label: null,
      modelId: 'm',
      numPrompts: 1,
      requestRate: 2,
      burstiness: 1,
      maxConcurrency: 4,
      metrics: {
        duration: 10,
        completed: 1,
        failed: 0,
        total_input_tokens: 10,
        total_output_tokens: 3,
        request_throughput: 0.1,
        output_throughput: 3,
        max_output_tokens_per_s: 192,
        max_concurrent_requests: 1,
        total_audio_frames: 0,
        num_ttft_samples: 1,
        mean_ttft_ms: 1000,
        p99_ttft_ms: 1000,
      },
      detailed: true,
      records: [rec],
      statuses: ['completed'],
      counts: {
        total: 1,
        completed: 1,
        failed: 0,
        timedOut: 0,
        cancelledAfterTimeout: 0,
        cancelled: 0,
        errored: 0,
        unsent: 0,
      },
      failFast: {
        enabled: true,
        tripped: true,
        cause: { requestIndex: 0, requestId: 'r-0', kind: 'total', elapsedS: 900 },
      },
      verdict: 'failed_closed',
      verdictReasons: [],
    });
    const text = pyJsonDumps(out, resultFloatKind);
    for (const piece of [
      '"request_rate": 2.0',
      '"burstiness": 1.0',
      '"max_concurrency": 4,',
      '"duration": 10.0',
      '"completed": 1,',
      '"output_throughput": 3.0',
      '"max_output_tokens_per_s": 192.0',
      '"max_concurrent_requests": 1,',
      '"total_audio_frames": 0.0',
      '"num_ttft_samples": 1,',
      '"mean_ttft_ms": 1000.0',
      '"p99_ttft_ms": 1000.0',
      '"input_lens": [10]',
      '"start_times": [4.0]',
      '"output_lens": [3]',
      '"ttfts": [1.0]',
      '"itls": [[2.0, 0.5]]',
      '"elapsed_s": 900.0',
      '"request_index": 0,',
    ])
      expect(text).toContain(piece);
  });

  it("the Seed-TTS gate's keys: WER statistics and each row's wer are floats, counts are ints", () => {
    const text = pyJsonDumps(
      {
        seed_tts_content_evaluated: 2,
        seed_tts_content_error_mean: 0,
        seed_tts_content_error_median: 1,
        seed_tts_sim_mean: null,
        seed_tts_asr_failed: 0,
        seed_tts_wer_eval_items: [
          { utterance_id: 'a', wer: 0 },
          { utterance_id: 'b', error: 'no_pcm' },
        ],
      },
      resultFloatKind,
    );
    expect(text).toBe(
      '{"seed_tts_content_evaluated": 2, "seed_tts_content_error_mean": 0.0, "seed_tts_content_error_median": 1.0, ' +
        '"seed_tts_sim_mean": null, "seed_tts_asr_failed": 0, "seed_tts_wer_eval_items": ' +
        '[{"utterance_id": "a", "wer": 0.0}, {"utterance_id": "b", "error": "no_pcm"}]}',
    );
  });
});
