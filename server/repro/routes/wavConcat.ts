/** Joins the PCM of several mono PCM16 WAV files into one WAV (non-streaming responses). */
import { wavBytes } from '../code2wav/kernels/wav.ts';

export function concatWavs(wavs: Uint8Array[], sampleRate: number): Uint8Array {
  const total = wavs.reduce((a, w) => a + (w.length - 44) / 2, 0);
  const pcm = new Int16Array(total);
  let o = 0;
  for (const w of wavs) {
    const view = new DataView(w.buffer, w.byteOffset + 44, w.length - 44);
    for (let i = 0; i < (w.length - 44) / 2; i++) pcm[o++] = view.getInt16(2 * i, true);
  }
  return wavBytes(pcm, sampleRate);
}
