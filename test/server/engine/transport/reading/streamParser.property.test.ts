/** Property-based fuzzing of the SSE framing, the event handling and the WAV reader (fast-check). */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { newRecord, type RequestRecord } from '#server/engine/records/record.ts';
import { StreamParser } from '#server/engine/transport/reading/streamParser.ts';
import { WavError, parseWav } from '#server/engine/transport/reading/wav.ts';
import { makeWav, sampleStream } from '#test/fixtures/golden-helpers/streams.ts';

const STREAM = new TextEncoder().encode(sampleStream());

/** Split `bytes` at the given cut points (any byte offsets, also inside UTF-8 characters). */
function split(bytes: Uint8Array, cuts: number[]): Uint8Array[] {
  const points = [...new Set(cuts.map((c) => c % (bytes.length + 1)))].sort((a, b) => a - b);
  const reads: Uint8Array[] = [];
  let from = 0;
  for (const p of [...points, bytes.length]) {
    reads.push(bytes.subarray(from, p));
    from = p;
  }
  return reads;
}

/** Parse reads; `timeOf(i)` gives the clock at read i. */
function run(reads: Uint8Array[], timeOf: (i: number) => number): RequestRecord {
  const record = newRecord(10, 0);
  let t = 0;
  const parser = new StreamParser(record, { now: () => t });
  reads.forEach((r, i) => {
    t = timeOf(i);
    parser.push(r);
  });
  parser.end();
  return record;
}

const content = (r: RequestRecord) => ({
  success: r.success,
  error: r.error,
  text: r.generatedText,
  outputTokens: r.outputTokens,
  promptLen: r.promptLen,
  itlCount: r.itl.length,
  audioFrames: r.audioFrames,
  audioDuration: r.audioDuration,
  hasAudio: r.hasAudio,
});

const cuts = fc.array(fc.nat({ max: STREAM.length }), { maxLength: 40 });

describe('StreamParser properties', () => {
  const whole = run([STREAM], () => 1);

  it('the reference stream parses as expected in one read', () => {
    expect(content(whole)).toEqual({
      success: true,
      error: '',
      text: 'Hello world ✓ café!',
      outputTokens: 5,
      promptLen: 17,
      itlCount: 4,
      audioFrames: 18000,
      audioDuration: 0.75,
      hasAudio: true,
    });
  });

  it('arbitrary splits across reads give identical tokens, text and audio (clock advancing per read)', () => {
    fc.assert(
      fc.property(cuts, (c) => {
        expect(content(run(split(STREAM, c), (i) => 1 + i * 0.01))).toEqual(content(whole));
      }),
    );
  });

  it('arbitrary splits with every read at the same clock time give identical timing fields too', () => {
    const timing = (r: RequestRecord) => ({
      ...content(r),
      ttft: r.ttft,
      itl: r.itl,
      latency: r.latency,
      textLatency: r.textLatency,
      audioTtfp: r.audioTtfp,
      audioRtf: r.audioRtf,
    });
    fc.assert(
      fc.property(cuts, (c) => {
        expect(timing(run(split(STREAM, c), () => 1))).toEqual(timing(whole));
      }),
    );
  });

  it('arbitrary bytes never throw out of push()/end(); a failure always has a code and a message', () => {
    const sseish = fc.array(
      fc.oneof(
        fc.constantFrom(
          'data: ',
          'data:',
          '\n',
          '\n\n',
          '\r\n',
          ': ping',
          '[DONE]',
          '{',
          '}',
          '"',
          'event: x',
          '{"choices":[{"delta":{"content":"a"}}],"modality":"text"}',
          '{"error":{}}',
          '{"choices":[{"delta":{"content":"UklGRg=="}}],"modality":"audio"}',
        ),
        fc.string({ maxLength: 8 }),
      ),
      { maxLength: 30 },
    );
    const inputs = fc.oneof(
      fc.array(fc.uint8Array({ maxLength: 64 }), { maxLength: 20 }),
      sseish.map((parts) => [new TextEncoder().encode(parts.join(''))]),
      fc.tuple(sseish, cuts).map(([parts, c]) => split(new TextEncoder().encode(parts.join('')), c)),
    );
    fc.assert(
      fc.property(inputs, fc.boolean(), (reads, small) => {
        const record = newRecord(1, 0);
        const parser = new StreamParser(record, { now: () => 1, maxEventBytes: small ? 16 : undefined });
        expect(() => {
          for (const r of reads) parser.push(r);
          parser.end();
        }).not.toThrow();
        if (!record.success) {
          expect(parser.failed).toBe(true);
          expect(record.error.length).toBeGreaterThan(0);
          expect(record.errorCode).not.toBeNull();
        }
      }),
      { numRuns: 300 },
    );
  });
});

describe('WAV reader properties', () => {
  it('arbitrary bytes either decode to sane parameters or raise WavError, nothing else', () => {
    const valid = makeWav({ frames: 50 });
    const inputs = fc.oneof(
      fc.uint8Array({ maxLength: 128 }),
      // A valid WAV with a few bytes overwritten or cut short.
      fc
        .tuple(
          fc.array(fc.tuple(fc.nat({ max: valid.length - 1 }), fc.integer({ min: 0, max: 255 })), { maxLength: 4 }),
          fc.nat({ max: valid.length }),
        )
        .map(([edits, len]) => {
          const copy = valid.slice(0, Math.max(len, 0));
          for (const [at, v] of edits) if (at < copy.length) copy[at] = v;
          return copy;
        }),
    );
    fc.assert(
      fc.property(inputs, (bytes) => {
        try {
          const info = parseWav(bytes);
          expect(info.channels).toBeGreaterThan(0);
          expect(info.sampleRate).toBeGreaterThan(0);
          expect(info.pcmBytes).toBeGreaterThanOrEqual(0);
          expect(info.pcmBytes).toBeLessThanOrEqual(bytes.length);
        } catch (err) {
          expect(err).toBeInstanceOf(WavError);
        }
      }),
      { numRuns: 500 },
    );
  });

  it('counts frames for every PCM width and channel count, and bounds a truncated data chunk', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(8, 16, 24, 32),
        fc.integer({ min: 1, max: 4 }),
        fc.integer({ min: 0, max: 500 }),
        (bits, channels, frames) => {
          const info = parseWav(makeWav({ bits, channels, frames, rate: 16000 }));
          expect(info).toEqual({
            channels,
            sampleWidth: bits / 8,
            sampleRate: 16000,
            pcmBytes: frames * channels * (bits / 8),
            dataOffset: 44,
          });
        },
      ),
    );
    const cut = makeWav({ frames: 100 }).slice(0, 44 + 51);
    expect(parseWav(cut).pcmBytes).toBe(51); // what is present, as wave.readframes returns it
  });
});
