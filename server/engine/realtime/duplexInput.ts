/**
 * A duplex turn's input speech from the Seed-TTS row's prompt WAV
 * (docs/design.md#realtime), as vLLM-Omni's Seed-TTS dataset prepares it
 * for its realtime client: mono PCM16 at 24 kHz (resampled when the file
 * has another rate, channels averaged), then a 1000 ms silent tail so
 * server VAD can find the end of the speech. The speech before the tail is
 * what an explicit turn uploads; its end is the turns' timing origin.
 */
import { readFile } from 'node:fs/promises';
import { StallscopeError } from '../../../shared/errors.ts';
import { pcmToMono, resample } from '../accuracy/resample.ts';
import { parseWav, WavError } from '../transport/index.ts';

export const DUPLEX_INPUT_RATE_HZ = 24_000;
/** vLLM-Omni's `SEED_TTS_SILENT_TAIL_MS`: longer than the 800 ms server-VAD silence threshold. */
export const SILENT_TAIL_MS = 1000;

export interface DuplexPcm {
  /** Speech then the silent tail, PCM16 mono at 24 kHz. */
  pcm: Buffer;
  /** Bytes of speech before the tail. */
  contentBytes: number;
}

/** The PCM of a WAV file as a duplex turn sends it. */
export function duplexPcmOfWav(bytes: Uint8Array): DuplexPcm {
  const info = parseWav(bytes);
  if (info.sampleWidth !== 2) throw new WavError(`the prompt WAV has ${8 * info.sampleWidth}-bit samples (16 needed)`);
  const mono = pcmToMono(bytes.subarray(info.dataOffset, info.dataOffset + info.pcmBytes), info.channels);
  let speech: Int16Array = mono;
  if (info.sampleRate !== DUPLEX_INPUT_RATE_HZ) {
    const f = resample(mono, info.sampleRate, DUPLEX_INPUT_RATE_HZ);
    speech = new Int16Array(f.length);
    for (let i = 0; i < f.length; i++) {
      const v = Math.round(f[i] * 32768);
      speech[i] = v > 32767 ? 32767 : v < -32768 ? -32768 : v;
    }
  }
  const contentBytes = speech.length * 2;
  const tailBytes = ((DUPLEX_INPUT_RATE_HZ * SILENT_TAIL_MS) / 1000) * 2;
  const pcm = Buffer.alloc(contentBytes + tailBytes);
  Buffer.from(speech.buffer, speech.byteOffset, contentBytes).copy(pcm, 0);
  return { pcm, contentBytes };
}

/** Reads and converts a row's prompt WAV; a file that is not 16-bit PCM fails its request with the reason. */
export async function readDuplexInput(path: string): Promise<DuplexPcm> {
  try {
    return duplexPcmOfWav(await readFile(path));
  } catch (e) {
    if (e instanceof WavError) throw new StallscopeError('INTERNAL', `${path}: ${e.message}`);
    throw e;
  }
}
