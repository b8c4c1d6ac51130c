/**
 * The speech backend's reader on scripted reads with an injected clock: every
 * figure is computed by hand from vLLM-Omni's definitions
 * (docs/design.md#speech-metrics). 24 kHz mono s16 = 48,000 bytes per second.
 */
import { describe, expect, it } from 'vitest';
import { newRecord } from '#server/engine/records/record.ts';
import { PcmReader } from '#server/engine/transport/reading/pcmReader.ts';
import { pcmFormatFromEnv, promptText } from '#server/engine/backends/speech.ts';
import { ContinuityMeter } from '#shared/metrics/continuity.ts';

const FORMAT = { sampleRate: 24000, channels: 1, continuityThresholdS: 0.1 };

/** Reads `chunks` ([time, bytes]) then ends at `endT`, the request having started at 10 s. */
function read(chunks: [number, number][], endT: number, format = FORMAT) {
  const record = newRecord(3, 10);
  let t = 10;
  const firsts: boolean[] = [];
  const reader = new PcmReader(
    record,
    { now: () => t, hooks: { onMessage: (m) => firsts.push(m.firstAudio) } },
    format,
  );
  for (const [at, bytes] of chunks) {
    t = at;
    reader.push(new Uint8Array(bytes));
  }
  t = endT;
  reader.end();
  return { record, firsts };
}

describe('the openai-audio-speech reader', () => {
  it('a stream that keeps ahead of playback: ttfp, latency, frames, duration, rtf; continuous', () => {
    // 0.5 s of audio at 10.25, then 0.5 s more at 10.5 (0.25 s played, 0.5 s received: no deficit).
    const { record, firsts } = read(
      [
        [10.25, 24000],
        [10.5, 24000],
      ],
      10.75,
    );
    expect(record.success).toBe(true);
    expect(record.audioTtfp).toBe(0.25);
    expect(record.latency).toBe(0.75); // the body's end, not the last chunk
    expect(record.audioFrames).toBe(24000);
    expect(record.audioDuration).toBe(1);
    expect(record.audioRtf).toBe(0.75);
    expect(record.audioUnderrunS).toBe(0);
    expect(record.audioUnderrunEventCount).toBe(0);
    expect(record.audioContinuityOk).toBe(true);
    expect(record.ttft).toBe(0); // TTFT is undefined for speech
    expect(firsts).toEqual([true, false]);
  });

  it('a stream that pauses mid-way: the worst deficit in seconds and one event per late chunk', () => {
    // t0 = 0.25 (relative). Chunk 2 at 0.75: played 0.5 s = 24,000 B, received 12,000 B → 0.25 s short.
    // Chunk 3 at 1.25: played 1.0 s = 48,000 B, received 36,000 B → 0.25 s short again (the player
    // never waits: the deficit is against real time since the first chunk). Chunk 4 at 1.5: played
    // 60,000 B, received 84,000 B → none.
    const { record } = read(
      [
        [10.25, 12000],
        [10.75, 24000],
        [11.25, 48000],
        [11.5, 4800],
      ],
      11.5,
    );
    expect(record.audioUnderrunS).toBe(0.25);
    expect(record.audioUnderrunEventCount).toBe(2);
    expect(record.audioContinuityOk).toBe(false);
    expect(record.audioFrames).toBe(44400);
    expect(record.audioDuration).toBe(1.85);
    expect(record.audioRtf).toBe(1.5 / 1.85);
  });

  it('continuity is judged against the threshold inclusively (<=)', () => {
    // 0.1 s short exactly: 4,800 B at 0, then the next chunk 0.2 s later (0.2 s played, 0.1 s received).
    const { record } = read(
      [
        [10, 4800],
        [10.2, 4800],
      ],
      10.2,
    );
    // Exactly the Python arithmetic on the relative arrival times (10.2 - 10 is 0.19999999999999929).
    expect(record.audioUnderrunS).toBe(((10.2 - 10 - 0) * 48000 - 4800) / 48000);
    expect(record.audioContinuityOk).toBe(true);
    const meter = new ContinuityMeter(48000);
    meter.add(0, 4800);
    meter.add(0.2, 4800);
    expect(meter.continuous(meter.maxUnderrunS)).toBe(true);
    expect(meter.continuous(meter.maxUnderrunS - 1e-9)).toBe(false);
  });

  it('no complete frame: duration and rtf 0, success with a warning (as upstream)', () => {
    const { record } = read([[10.1, 1]], 10.2);
    expect(record.success).toBe(true);
    expect(record.audioFrames).toBe(0);
    expect(record.audioRtf).toBe(0);
    expect(record.warnings[0]).toMatch(/Audio duration is zero/);
  });

  it('stereo 16 kHz from the environment: frames are bytes ÷ 4, duration frames ÷ 16,000', () => {
    const warnings: string[] = [];
    const format = pcmFormatFromEnv(
      {
        VLLM_OMNI_BENCH_AUDIO_SAMPLE_RATE: '16000',
        VLLM_OMNI_BENCH_AUDIO_CHANNELS: '2',
        VLLM_OMNI_BENCH_AUDIO_CONTINUITY_THRESHOLD_S: '0.5',
      },
      (w) => warnings.push(w),
    );
    expect(format).toEqual({ sampleRate: 16000, channels: 2, continuityThresholdS: 0.5 });
    const { record } = read([[10.5, 64001]], 11, format);
    expect(record.audioFrames).toBe(16000);
    expect(record.audioDuration).toBe(1);
    expect(warnings).toEqual([]);
  });

  it('bad environment values warn and keep the defaults, as upstream', () => {
    const warnings: string[] = [];
    const format = pcmFormatFromEnv(
      { VLLM_OMNI_BENCH_AUDIO_SAMPLE_RATE: 'fast', VLLM_OMNI_BENCH_AUDIO_CONTINUITY_THRESHOLD_S: 'x' },
      (w) => warnings.push(w),
    );
    expect(format).toEqual({ sampleRate: 24000, channels: 1, continuityThresholdS: 0.1 });
    expect(warnings).toHaveLength(2);
    expect(pcmFormatFromEnv({ VLLM_OMNI_BENCH_AUDIO_CONTINUITY_THRESHOLD_S: '-3' }, () => undefined)).toMatchObject({
      continuityThresholdS: 0,
    });
  });

  it("the speech input is the last user message's text", () => {
    expect(
      promptText([
        { role: 'system', content: [{ type: 'text', text: 'sys' }] },
        {
          role: 'user',
          content: [
            { type: 'text', text: 'say ' },
            { type: 'text', text: 'this' },
          ],
        },
      ]),
    ).toBe('say this');
  });
});
