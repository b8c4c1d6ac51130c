/** StreamParser semantics beyond the golden transcripts: token rules, audio, metrics, and every misbehaviour's error. */
import { describe, expect, it } from 'vitest';
import { newRecord, type RequestRecord } from '#server/engine/records/record.ts';
import { StreamParser, type MessageInfo } from '#server/engine/transport/reading/streamParser.ts';
import { DONE, audioEvent, b64, makeWav, textEvent, usageEvent } from '#test/fixtures/golden-helpers/streams.ts';
import { ManualClock } from '#test/fixtures/golden-helpers/golden.ts';

const enc = (s: string) => new TextEncoder().encode(s);

/** Feed `reads` (strings or bytes) one per clock step of `stepS` seconds after start 100. */
function parse(
  reads: (string | Uint8Array)[],
  opts: { stepS?: number; maxEventBytes?: number; end?: boolean; omni?: boolean } = {},
) {
  const clock = new ManualClock(100);
  const record = newRecord(10, 100);
  const messages: MessageInfo[] = [];
  const warnings: string[] = [];
  const parser = new StreamParser(record, {
    now: clock.now,
    maxEventBytes: opts.maxEventBytes,
    omniStageMetrics: opts.omni,
    hooks: {
      // Copied: the parser refills one MessageInfo per message.
      onMessage: (m) => messages.push({ ...m }),
      onWarning: (w) => warnings.push(w),
    },
  });
  for (const r of reads) {
    clock.t += opts.stepS ?? 0.125;
    parser.push(typeof r === 'string' ? enc(r) : r);
  }
  if (opts.end !== false) parser.end();
  return { record, parser, messages, warnings };
}

function expectFailure(record: RequestRecord, code: string, pattern: RegExp) {
  expect(record.success).toBe(false);
  expect(record.errorCode).toBe(code);
  expect(record.error).toMatch(pattern);
}

describe('StreamParser: tokens and timing', () => {
  it('k-token rule: k-1 zeros after a bundled first event, then (ts-last)/k k times', () => {
    const { record, messages } = parse([
      textEvent('', 0),
      textEvent('ab', 3),
      textEvent('c', 4),
      textEvent('de', 6),
      usageEvent(6),
      DONE,
    ]);
    expect(record.ttft).toBe(0.25);
    expect(record.itl).toEqual([0, 0, 0.125, 0.0625, 0.0625]);
    expect(record.outputTokens).toBe(6);
    expect(record.latency).toBe(0.625); // includes the usage-only event, not [DONE]
    expect(record.textLatency).toBe(0.25 + 0.25);
    expect(messages.map((m) => m.newTokens)).toEqual([0, 3, 1, 2, 0]);
    expect(messages.filter((m) => m.firstToken)).toHaveLength(1);
  });

  it('falls back to token_ids, then to 1 token per non-empty content without usage', () => {
    const ids = parse([
      `data: ${JSON.stringify({ choices: [{ delta: { content: 'xy' }, token_ids: [5, 6] }], modality: 'text' })}\n\n`,
      textEvent('z', null),
      textEvent('', null),
    ]);
    expect(ids.record.itl).toEqual([0, 0.125]);
    expect(ids.record.generatedText).toBe('xyz');
    // A usage of 0 counts as absent (coerce_positive_int_scalar), so non-empty content counts one token
    // (item 6 of test/fixtures/golden/README.md#behaviour-these-files-pin-july-code-as-executed), while the empty
    // role chunk counts none.
    const zero = parse([textEvent('', 0), textEvent('q', 0)]);
    expect(zero.record.ttft).toBe(0.25);
    expect(zero.record.outputTokens).toBe(0);
  });

  it('takes prompt_len from the server usage and output_tokens as the max of usage and metrics.num_tokens_out', () => {
    const metrics = {
      stage_metrics: { '0': { num_tokens_out: 9, final_output_type: 'text' }, '2': { audio_frames: 100 } },
    };
    const { record } = parse([
      textEvent('a', 1),
      `data: ${JSON.stringify({ choices: [], usage: { prompt_tokens: 33, completion_tokens: 2 }, metrics })}\n\n`,
    ]);
    expect(record.promptLen).toBe(33);
    expect(record.outputTokens).toBe(9);
    expect(record.stageSnapshot).toBeUndefined(); // vLLM's plain chat client keeps no stage metrics
    const flat = parse([`data: ${JSON.stringify({ choices: [], metrics: { stage_id: 1, num_tokens_out: 4 } })}\n\n`]);
    expect(flat.record.outputTokens).toBe(4);
  });

  it('openai-chat-omni keeps the stage fields request_stage_metrics writes: each stage replaced whole by its latest entry', () => {
    const ev = (stageMetrics: unknown) =>
      `data: ${JSON.stringify({ choices: [], metrics: { stage_metrics: stageMetrics } })}\n\n`;
    const { record, warnings } = parse(
      [
        ev({ '0': { num_tokens_out: 1, finish_reason: null, vllm_itls_ms: [] }, '1': 'pending' }),
        textEvent('a', 1),
        // Stage 0 again without finish_reason: dict.update replaces the entry, so the earlier null is gone.
        ev({ '0': { num_tokens_out: 2, vllm_itls_ms: [5] }, '2': { audio_frames: 4800, audio_duration_s: 0.2, x: 1 } }),
        ev({ '1': { stage_id: 1 } }),
      ],
      { omni: true },
    );
    expect(record.stageSnapshot).toEqual({
      '0': { num_tokens_out: 2 },
      '1': {},
      '2': { audio_frames: 4800, audio_duration_s: 0.2 },
    });
    expect(warnings).toEqual([]);
    // A stage whose latest entry is no object keeps no fields; a flat metrics object is no stage map.
    const odd = parse(
      [ev({ '0': 7 }), `data: ${JSON.stringify({ choices: [], metrics: { stage_id: 1, num_tokens_out: 4 } })}\n\n`],
      { omni: true },
    );
    expect(odd.record.stageSnapshot).toEqual({});
    expect(parse([textEvent('a', 1)], { omni: true }).record.stageSnapshot).toBeUndefined();
  });

  it('keeps a request that ends early with the stage fields it saw (a timeout reads them from the record)', () => {
    const { record } = parse(
      [`data: ${JSON.stringify({ choices: [], metrics: { stage_metrics: { '0': { num_tokens_out: 3 } } } })}\n\n`],
      { omni: true, end: false },
    );
    expect(record.stageSnapshot).toEqual({ '0': { num_tokens_out: 3 } });
  });

  it('bounds the stage fields a hostile server sends: 16 stages, scalars, short strings, one warning', () => {
    const many = Object.fromEntries(Array.from({ length: 40 }, (_, k) => [String(k), { num_tokens_out: k }]));
    const { record, warnings } = parse(
      [
        `data: ${JSON.stringify({ choices: [], metrics: { stage_metrics: many } })}\n\n`,
        `data: ${JSON.stringify({ choices: [], metrics: { stage_metrics: { '0': { finish_reason: 'x'.repeat(201), audio_frames: [1, 2] } } } })}\n\n`,
      ],
      { omni: true },
    );
    expect(Object.keys(record.stageSnapshot!)).toHaveLength(16);
    expect(record.stageSnapshot!['0']).toEqual({});
    expect(record.stageSnapshot!['15']).toEqual({ num_tokens_out: 15 });
    expect(warnings).toEqual(['stage metrics name more than 16 stages; the others are not kept']);
  });

  it('two messages in one read share its timestamp; comments and [DONE] take none', () => {
    const { record, messages } = parse([textEvent('a', 1) + ': ping\n\n' + textEvent('b', 2), DONE]);
    expect(messages.map((m) => m.ts)).toEqual([100.125, 100.125]);
    expect(record.itl).toEqual([0]);
  });

  it('hands its hooks one MessageInfo, refilled for every message (matched or parsed), not an object each', () => {
    const seen = new Set<MessageInfo>();
    const firsts: boolean[] = [];
    const parser = new StreamParser(newRecord(10, 0), {
      now: () => 1,
      hooks: {
        onMessage: (m) => {
          seen.add(m);
          firsts.push(m.firstToken);
        },
      },
    });
    for (const e of [textEvent('a', 1), textEvent('b', 2), textEvent('c', 3), usageEvent(3)]) parser.push(enc(e));
    expect(seen.size).toBe(1);
    expect(firsts).toEqual([true, false, false, false]);
  });

  it('normalises CRLF line ends, also when CR and LF arrive in different reads', () => {
    const crlf = textEvent('a', 1).replace(/\n/g, '\r\n');
    const { record } = parse([crlf.slice(0, -1), crlf.slice(-1) + textEvent('b', 2).replace(/\n/g, '\r\n')]);
    expect(record.generatedText).toBe('ab');
    expect(record.success).toBe(true);
  });
});

describe('StreamParser: audio', () => {
  it('counts PCM frames of base64 WAV chunks and measures audio_ttfp / audio_rtf from the request start', () => {
    const { record, messages } = parse([
      audioEvent(b64(makeWav({ frames: 12000 }))),
      textEvent('a', 1),
      audioEvent(b64(makeWav({ frames: 12000, extraChunk: true }))),
    ]);
    expect(record.audioTtfp).toBe(0.125);
    expect(record.audioFrames).toBe(24000);
    expect(record.audioDuration).toBe(1);
    expect(record.audioRtf).toBe(0.375);
    expect(record.hasAudio).toBe(true);
    expect(messages.filter((m) => m.firstAudio)).toHaveLength(1);
  });

  it('accepts delta.audio.data as a fallback', () => {
    const ev = `data: ${JSON.stringify({ choices: [{ delta: { audio: { data: b64(makeWav({ frames: 4800 })) } } }], modality: 'audio' })}\n\n`;
    expect(parse([ev]).record.audioDuration).toBe(0.2);
  });

  it('drops chunks whose format differs from the first with one warning; their time still counts', () => {
    const odd = b64(makeWav({ frames: 8000, rate: 16000 }));
    const stereo = b64(makeWav({ frames: 100, channels: 2 }));
    const { record, warnings } = parse([
      audioEvent(b64(makeWav({ frames: 24000 }))),
      audioEvent(odd),
      audioEvent(stereo),
    ]);
    expect(record.audioFrames).toBe(24000);
    expect(record.audioRtf).toBe(0.375);
    expect(warnings).toEqual([
      expect.stringContaining(
        'Dropped 2 wav chunks with inconsistent params (expected=(1, 2, 24000), first_inconsistent=(1, 2, 16000))',
      ),
    ]);
    expect(record.warnings).toEqual(warnings);
  });
});

describe('StreamParser: a misbehaving target fails the request with a clear error', () => {
  it('a non-SSE line (e.g. an HTML error page)', () => {
    const { record, parser } = parse(['<html><body>502 Bad Gateway</body></html>\n\n']);
    expect(parser.failed).toBe(true);
    expectFailure(record, 'REQ_BAD_SSE', /^malformed SSE stream: not an SSE line: "<html><body>502 Bad Gateway/);
  });

  it('invalid JSON in a data field', () => {
    const { record } = parse([textEvent('a', 1), 'data: {"choices": [\n\n']);
    expectFailure(record, 'REQ_BAD_JSON', /^invalid JSON in an SSE event: .*; the event was "\{\\"choices\\": \["$/);
    expect(record.ttft).toBe(0.125); // partial fields are kept, as upstream does
    expect(record.latency).toBe(0);
  });

  it('a JSON value that is not an object', () => {
    expectFailure(parse(['data: 42\n\n']).record, 'REQ_BAD_JSON', /not a JSON object: "42"/);
  });

  it('bad base64 in an audio chunk', () => {
    expectFailure(
      parse([audioEvent('UklGR!!!')]).record,
      'REQ_BAD_AUDIO',
      /^undecodable audio chunk: invalid base64: characters outside/,
    );
    expectFailure(
      parse([audioEvent('UklGRg')]).record,
      'REQ_BAD_AUDIO',
      /invalid base64: length 6 is not a multiple of 4/,
    );
  });

  it('a malformed WAV in an audio chunk', () => {
    expectFailure(
      parse([audioEvent(b64(enc('not a wav at all')))]).record,
      'REQ_BAD_AUDIO',
      /^undecodable audio chunk: not a WAV file: no RIFF header$/,
    );
    expectFailure(
      parse([audioEvent(b64(makeWav({ frames: 10, format: 3 })))]).record,
      'REQ_BAD_AUDIO',
      /unsupported WAV format tag 3/,
    );
    expectFailure(
      parse([audioEvent(b64(makeWav({ frames: 10 }).slice(0, 30)))]).record,
      'REQ_BAD_AUDIO',
      /fmt chunk is truncated/,
    );
  });

  it('an in-stream error: the message verbatim, timing kept, failed only at the end', () => {
    const err = `data: ${JSON.stringify({ error: { message: 'EngineCore died', type: 'InternalServerError', code: 500 } })}\n\n`;
    const { record, parser } = parse([textEvent('a', 1), err, DONE], { end: false });
    expect(parser.failed).toBe(false); // parsing goes on so the error's time counts for latency
    parser.end();
    expect(parser.failed).toBe(true);
    expect(record).toMatchObject({
      success: false,
      error: 'EngineCore died',
      errorCode: 'REQ_STREAM_ERROR',
      latency: 0.25,
    });
    expect(parse([`data: {"error": "plain text"}\n\n`]).record.error).toBe('plain text');
  });

  it('an event larger than the bound, terminated or not', () => {
    const big = textEvent('x'.repeat(5000), 1);
    expectFailure(
      parse([big], { maxEventBytes: 4096 }).record,
      'REQ_EVENT_TOO_LARGE',
      /^SSE event exceeds the size bound: more than 4096 bytes/,
    );
    expectFailure(
      parse([big.slice(0, 4000), big.slice(4000, 4200)], { maxEventBytes: 4096 }).record,
      'REQ_EVENT_TOO_LARGE',
      /4096/,
    );
    expect(parse([big], { maxEventBytes: 8192 }).record.success).toBe(true);
    // The bound is in UTF-8 bytes: 2,000 check marks are 6,000 bytes.
    const wide = textEvent('✓'.repeat(2000), 1);
    expectFailure(parse([wide], { maxEventBytes: 4096 }).record, 'REQ_EVENT_TOO_LARGE', /4096/);
    const pieces = Array.from({ length: 8 }, (_, i) => wide.slice(i * 300, (i + 1) * 300));
    expectFailure(parse(pieces, { maxEventBytes: 4096 }).record, 'REQ_EVENT_TOO_LARGE', /4096/);
    expect(parse([wide], { maxEventBytes: 6200 }).record.success).toBe(true);
  });

  it('bytes that are not UTF-8', () => {
    expectFailure(
      parse([new Uint8Array([0x64, 0x61, 0xff, 0xfe, 0x0a, 0x0a])]).record,
      'REQ_BAD_SSE',
      /not valid UTF-8/,
    );
  });

  it('stops reading after a failure: later pushes and end() change nothing', () => {
    const { record, parser } = parse(['garbage line\n\n'], { end: false });
    const before = structuredClone(record);
    parser.push(enc(textEvent('a', 1)));
    parser.end();
    expect(record).toEqual(before);
  });

  it('tolerates `data:` without a space (one warning) and a clean EOF inside an event (one warning)', () => {
    const { record, warnings } = parse([
      'data:{"choices":[{"delta":{"content":"a"}}],"modality":"text"}\n\n',
      'data:{"choices":[{"delta":{"content":"b"}}],"modality":"text"}\n\n',
      'data: {"cho',
    ]);
    expect(record.success).toBe(true);
    expect(record.generatedText).toBe('ab');
    expect(warnings).toHaveLength(2);
    expect(warnings[0]).toMatch(/without a space/);
    expect(warnings[1]).toMatch(/unterminated SSE event/);
  });
});

describe('StreamParser: token counts from the server are bounded wherever they arrive', () => {
  const usageOnly = (completion: number) =>
    `data: ${JSON.stringify({ choices: [], usage: { prompt_tokens: 3, completion_tokens: completion, total_tokens: completion + 3 } })}\n\n`;

  it('inline usage on a text chunk at 1e9 fails the request with REQ_TOKEN_BOUND', () => {
    const { record, parser } = parse([textEvent('a', 1), textEvent('b', 1e9), DONE]);
    expect(parser.failed).toBe(true);
    expectFailure(record, 'REQ_TOKEN_BOUND', /: usage\.completion_tokens = 1000000000 exceeds 1000000$/);
  });

  it('the usage-only last chunk (`choices: []`) at 1e9 fails it with the same reason, and sets no output length', () => {
    const { record, parser } = parse([textEvent('a', 1), textEvent('b', 2), usageOnly(1e9), DONE]);
    expect(parser.failed).toBe(true);
    expectFailure(record, 'REQ_TOKEN_BOUND', /: usage\.completion_tokens = 1000000000 exceeds 1000000$/);
    expect(record.outputTokens).toBe(2);
  });

  it('a usage-only chunk at the bound is taken as the output length', () => {
    const { record } = parse([textEvent('a', 1), usageOnly(1_000_000), DONE]);
    expect(record.success).toBe(true);
    expect(record.outputTokens).toBe(1_000_000);
  });

  it('stage metrics reporting 1e9 output tokens fail it too', () => {
    const metrics = `data: ${JSON.stringify({ choices: [], metrics: { num_tokens_out: 1e9 } })}\n\n`;
    const { record } = parse([textEvent('a', 1), metrics, DONE]);
    expectFailure(record, 'REQ_TOKEN_BOUND', /: metrics output tokens = 1000000000 exceeds 1000000$/);
  });
});
