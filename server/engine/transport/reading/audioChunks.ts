/**
 * Accumulates a request's streamed audio as vLLM-Omni's client does: each
 * chunk is the base64 of a complete WAV; the first chunk's (channels, sample
 * width, rate) wins, a chunk with other parameters is dropped (counted for
 * one per-request warning), and the frames are the PCM bytes of the kept
 * chunks over the frame size. Undecodable chunks throw WavError.
 * With a sink (the Seed-TTS gate's spool), the kept PCM bytes go to it.
 */
import { WavError, decodeBase64Strict, parseWav } from './wav.ts';

type AudioParams = readonly [channels: number, width: number, rate: number];

/** Where a request's kept PCM goes when its audio is evaluated (see accuracy/audioSpool.ts). */
export interface AudioSink {
  /** The PCM bytes of one kept chunk, in the stream's (first chunk's) format. */
  write(pcm: Uint8Array, channels: number, sampleWidth: number, sampleRate: number): void;
  /** The stream ended (successfully read to its end, whatever the request's outcome). */
  end(): void;
}

export class AudioChunks {
  private params: AudioParams | null = null;
  private pcmBytes = 0;
  private dropped = 0;
  private firstOdd: AudioParams | null = null;

  constructor(private readonly sink?: AudioSink) {}

  /** Decode one chunk's content (a base64 WAV string). */
  add(content: unknown): void {
    if (typeof content !== 'string') throw new WavError('an audio chunk is not a base64 string');
    const bytes = decodeBase64Strict(content);
    const wav = parseWav(bytes);
    const params: AudioParams = [wav.channels, wav.sampleWidth, wav.sampleRate];
    if (this.params === null) this.params = params;
    else if (params.some((v, i) => v !== this.params![i])) {
      this.dropped++;
      this.firstOdd ??= params;
      return;
    }
    this.pcmBytes += wav.pcmBytes;
    if (this.sink && wav.pcmBytes > 0)
      this.sink.write(bytes.subarray(wav.dataOffset, wav.dataOffset + wav.pcmBytes), ...params);
  }

  /** Frames and seconds of the kept audio (0 when none). */
  totals(): { frames: number; durationS: number } {
    if (this.params === null || this.pcmBytes === 0) return { frames: 0, durationS: 0 };
    const [channels, width, rate] = this.params;
    const frames = Math.floor(this.pcmBytes / (width * channels));
    return { frames, durationS: frames / rate };
  }

  /** The per-request warning about dropped chunks, worded like vLLM-Omni's log line; null if none was dropped. */
  dropWarning(): string | null {
    if (this.dropped === 0) return null;
    return (
      `Dropped ${this.dropped} wav chunks with inconsistent params (expected=(${this.params!.join(', ')}), ` +
      `first_inconsistent=(${this.firstOdd!.join(', ')})). Audio frames/duration may be undercounted.`
    );
  }
}
