import { describe, expect, it } from 'vitest';
import { encodeWav16, pcmToMono, resample } from '#server/engine/accuracy/resample.ts';
import { parseWav } from '#server/engine/transport/reading/wav.ts';

const tone = (hz: number, rate: number, n: number, amp = 16000): Int16Array =>
  Int16Array.from({ length: n }, (_, i) => Math.round(amp * Math.sin((2 * Math.PI * hz * i) / rate)));

/** RMS of the middle half (away from the zero-padded edges). */
function rms(x: Float32Array): number {
  const a = Math.floor(x.length / 4);
  const b = Math.floor((3 * x.length) / 4);
  let s = 0;
  for (let i = a; i < b; i++) s += x[i] * x[i];
  return Math.sqrt(s / (b - a));
}

describe('24 kHz → 16 kHz resampling', () => {
  it('keeps int(len × 16000 / 24000) samples', () => {
    expect(resample(new Int16Array(24000), 24000, 16000).length).toBe(16000);
    expect(resample(new Int16Array(10), 24000, 16000).length).toBe(6);
    expect(resample(new Int16Array(1), 24000, 16000).length).toBe(0);
  });

  it('keeps a 1 kHz tone: amplitude and the value at each 16 kHz instant', () => {
    const out = resample(tone(1000, 24000, 24000), 24000, 16000);
    const want = 16000 / 32768 / Math.SQRT2;
    expect(rms(out)).toBeGreaterThan(want * 0.99);
    expect(rms(out)).toBeLessThan(want * 1.01);
    for (const i of [4000, 8001, 11999]) {
      const ideal = (16000 / 32768) * Math.sin((2 * Math.PI * 1000 * i) / 16000);
      expect(Math.abs(out[i] - ideal)).toBeLessThan(0.005);
    }
  });

  it('passes 7 kHz (below the new Nyquist) and rejects 10 kHz (it would alias to 6 kHz)', () => {
    const full = 16000 / 32768 / Math.SQRT2;
    expect(rms(resample(tone(7000, 24000, 24000), 24000, 16000)) / full).toBeGreaterThan(0.9);
    expect(rms(resample(tone(10000, 24000, 24000), 24000, 16000)) / full).toBeLessThan(0.01);
  });

  it('handles other rates (22.05 kHz) and stereo by the channel mean', () => {
    expect(resample(new Int16Array(22050), 22050, 16000).length).toBe(16000);
    const stereo = new Uint8Array(new Int16Array([100, 300, -50, -150]).buffer);
    expect([...pcmToMono(stereo, 2)]).toEqual([200, -100]);
  });

  it('writes a 16 kHz mono 16-bit WAV that the client reader accepts', () => {
    const wav = encodeWav16(Float32Array.from([0, 0.5, -1, 1.5]), 16000);
    expect(parseWav(wav)).toMatchObject({
      channels: 1,
      sampleWidth: 2,
      sampleRate: 16000,
      pcmBytes: 8,
      dataOffset: 44,
    });
    expect([...new Int16Array(wav.buffer.slice(wav.byteOffset + 44, wav.byteOffset + 52))]).toEqual([
      0, 16384, -32768, 32767,
    ]);
  });
});
