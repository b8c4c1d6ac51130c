/**
 * Band-limited resampling of 16-bit PCM for the recogniser (24 kHz → 16 kHz,
 * as seed-tts-eval feeds Whisper), and the WAV file it is uploaded as.
 *
 * Upstream uses scipy.signal.resample (FFT); this is a polyphase
 * windowed-sinc filter (Blackman window, 16 zero crossings each side,
 * cut-off at 0.95 of the lower Nyquist): the same band-limited result to
 * within the filter's transition band, in bounded time and memory per sample.
 * Output length is int(len × to / from), as upstream.
 */

const ZERO_CROSSINGS = 16;
const ROLLOFF = 0.95;

function gcd(a: number, b: number): number {
  while (b) [a, b] = [b, a % b];
  return a;
}

function sinc(x: number): number {
  if (x === 0) return 1;
  const px = Math.PI * x;
  return Math.sin(px) / px;
}

/** Mono s16 samples at `from` Hz → Float32 samples in [-1, 1) at `to` Hz. */
export function resample(input: Int16Array, from: number, to: number): Float32Array {
  if (!(Number.isInteger(from) && from > 0 && Number.isInteger(to) && to > 0))
    throw new RangeError(`sample rates must be positive integers (got ${from} → ${to})`);
  const outLen = Math.floor((input.length * to) / from);
  const out = new Float32Array(outLen);
  if (outLen === 0) return out;
  const g = gcd(from, to);
  const up = to / g; // L: output samples per `down` input samples
  const down = from / g; // M
  const cutoff = Math.min(1, to / from) * ROLLOFF; // relative to the input's Nyquist
  const half = Math.ceil(ZERO_CROSSINGS / cutoff); // taps each side, in input samples
  const width = 2 * half;
  // One filter per output phase: output n sits at input time n·M/L = base + p/L.
  const phases: Float32Array[] = [];
  for (let p = 0; p < up; p++) {
    const frac = p / up;
    const taps = new Float32Array(width);
    let sum = 0;
    for (let j = 0; j < width; j++) {
      const d = frac + half - 1 - j; // distance from the output time to input sample base - half + 1 + j
      const w =
        Math.abs(d) >= half
          ? 0
          : 0.42 + 0.5 * Math.cos((Math.PI * d) / half) + 0.08 * Math.cos((2 * Math.PI * d) / half);
      taps[j] = cutoff * sinc(cutoff * d) * w;
      sum += taps[j];
    }
    for (let j = 0; j < width; j++) taps[j] /= sum; // unity gain at DC
    phases.push(taps);
  }
  const n = input.length;
  for (let o = 0; o < outLen; o++) {
    const pos = o * down;
    const base = Math.floor(pos / up);
    const taps = phases[pos - base * up];
    const first = base - half + 1;
    let acc = 0;
    const jStart = Math.max(0, -first);
    const jEnd = Math.min(width, n - first);
    for (let j = jStart; j < jEnd; j++) acc += taps[j] * input[first + j];
    out[o] = acc / 32768;
  }
  return out;
}

/** Float samples → a 16-bit mono PCM WAV file (clipped, rounded), as soundfile writes PCM_16. */
export function encodeWav16(samples: Float32Array, rate: number): Buffer {
  const dataBytes = samples.length * 2;
  const b = Buffer.alloc(44 + dataBytes);
  b.write('RIFF', 0, 'ascii');
  b.writeUInt32LE(36 + dataBytes, 4);
  b.write('WAVE', 8, 'ascii');
  b.write('fmt ', 12, 'ascii');
  b.writeUInt32LE(16, 16);
  b.writeUInt16LE(1, 20); // PCM
  b.writeUInt16LE(1, 22); // mono
  b.writeUInt32LE(rate, 24);
  b.writeUInt32LE(rate * 2, 28);
  b.writeUInt16LE(2, 32);
  b.writeUInt16LE(16, 34);
  b.write('data', 36, 'ascii');
  b.writeUInt32LE(dataBytes, 40);
  for (let i = 0; i < samples.length; i++) {
    const v = Math.round(samples[i] * 32768);
    b.writeInt16LE(v > 32767 ? 32767 : v < -32768 ? -32768 : v, 44 + 2 * i);
  }
  return b;
}

/** s16le bytes of `channels` interleaved channels → mono Int16 samples (channel mean). */
export function pcmToMono(pcm: Uint8Array, channels: number): Int16Array {
  const view = new DataView(pcm.buffer, pcm.byteOffset, pcm.byteLength);
  const frames = Math.floor(pcm.byteLength / (2 * channels));
  const out = new Int16Array(frames);
  for (let f = 0; f < frames; f++) {
    let s = 0;
    for (let c = 0; c < channels; c++) s += view.getInt16((f * channels + c) * 2, true);
    out[f] = Math.round(s / channels);
  }
  return out;
}
