/**
 * A duplex turn's input speech from a Seed-TTS prompt WAV: mono PCM16 at
 * 24 kHz (resampled, channels averaged), then vLLM-Omni's 1000 ms silent
 * tail; a WAV that is not 16-bit PCM says why.
 */
import { describe, expect, it } from 'vitest';
import { duplexPcmOfWav } from '#server/engine/realtime/duplexInput.ts';
import { makeWav } from '#test/helpers/wav.ts';

const TAIL_BYTES = 24_000 * 2; // 1000 ms at 24 kHz

describe('duplexPcmOfWav', () => {
  it('keeps a 24 kHz mono file as it is and appends 1 s of silence', () => {
    const wav = makeWav(2400, 24_000);
    const { pcm, contentBytes } = duplexPcmOfWav(wav);
    expect(contentBytes).toBe(4800);
    expect(pcm.length).toBe(4800 + TAIL_BYTES);
    expect(pcm.subarray(0, 4800).equals(wav.subarray(44))).toBe(true);
    expect(pcm.subarray(4800).every((b) => b === 0)).toBe(true);
  });

  it('resamples 16 kHz stereo to 24 kHz mono: 50 ms stays 50 ms, the tone keeps its level', () => {
    const { pcm, contentBytes } = duplexPcmOfWav(makeWav(800, 16_000, 2));
    expect(contentBytes).toBe(1200 * 2);
    expect(pcm.length).toBe(2400 + TAIL_BYTES);
    const speech = new Int16Array(pcm.buffer.slice(pcm.byteOffset, pcm.byteOffset + contentBytes));
    const peak = Math.max(...speech.subarray(100, 1100).map((v) => Math.abs(v)));
    // The fixture's 440 Hz tone has amplitude 8000; band-limited resampling keeps it within a few percent.
    expect(peak).toBeGreaterThan(7600);
    expect(peak).toBeLessThan(8400);
  });

  it('refuses a WAV that is not 16-bit PCM, saying so', () => {
    const wav = makeWav(100, 24_000);
    wav.writeUInt16LE(8, 34); // 8 bits per sample
    expect(() => duplexPcmOfWav(wav)).toThrow(/8-bit samples \(16 needed\)/);
  });
});
