/**
 * Reads a streamed `/v1/audio/speech` answer (raw PCM, chunked) into the
 * record as vLLM-Omni's `openai-audio-speech` client does
 * (docs/design.md#speech-metrics): each non-empty read is one chunk,
 * timestamped when it was read; the first sets `audio_ttfp`; at the end
 * `latency` is the time the body ended, frames = bytes ÷ (2 × channels),
 * duration = frames ÷ rate, `audio_rtf` = latency ÷ duration (0 without
 * audio), and the continuity check runs over the chunks' arrival times
 * (each read's time when it was taken from the socket, docs/design.md#read-time).
 * TTFT is undefined: no text is read.
 */
import { ContinuityMeter } from '../../../../shared/metrics/continuity.ts';
import type { BodyReader, ReaderOptions } from './responseReading.ts';
import type { RequestRecord } from '../../records/record.ts';

/** PCM s16: two bytes per sample (vLLM-Omni's DEFAULT_AUDIO_SAMPLE_WIDTH). */
export const PCM_SAMPLE_WIDTH = 2;

export interface PcmFormat {
  sampleRate: number;
  channels: number;
  /** Seconds of underrun a request may have and still be continuous. */
  continuityThresholdS: number;
}

export class PcmReader implements BodyReader {
  readonly failed = false;
  private readonly st: number;
  private bytes = 0;
  private readonly meter: ContinuityMeter;
  /** The bytes of a split frame held back from the audio sink, which takes whole frames. */
  private carry = new Uint8Array(0);

  constructor(
    private readonly record: RequestRecord,
    private readonly opts: ReaderOptions,
    private readonly format: PcmFormat,
  ) {
    this.st = record.startTime;
    this.meter = new ContinuityMeter(format.sampleRate * PCM_SAMPLE_WIDTH * format.channels);
  }

  push(chunk: Uint8Array, readT?: number): void {
    if (chunk.length === 0) return;
    const ts = readT ?? this.opts.now();
    const rec = this.record;
    const firstAudio = !rec.hasAudio;
    if (firstAudio) {
      rec.hasAudio = true;
      rec.audioTtfp = ts - this.st;
    }
    this.bytes += chunk.length;
    this.meter.add(ts - this.st, chunk.length);
    if (this.opts.audioSink) this.sink(chunk);
    this.opts.hooks?.onMessage?.({ ts, modality: 'audio', newTokens: 0, firstToken: false, firstAudio });
  }

  end(endT?: number): void {
    const rec = this.record;
    rec.latency = (endT ?? this.opts.now()) - this.st;
    const frames = Math.floor(this.bytes / (PCM_SAMPLE_WIDTH * this.format.channels));
    rec.audioFrames = frames;
    rec.audioDuration = frames > 0 ? frames / this.format.sampleRate : 0;
    rec.audioRtf = rec.audioDuration > 0 ? rec.latency / rec.audioDuration : 0;
    if (rec.audioDuration <= 0) this.warn('Audio duration is zero: the answer carried no complete PCM frame');
    rec.audioUnderrunS = this.meter.maxUnderrunS;
    rec.audioContinuityOk = this.meter.continuous(this.format.continuityThresholdS);
    rec.audioUnderrunEventCount = this.meter.eventCount;
    this.opts.audioSink?.end();
    rec.success = true;
    rec.error = '';
    rec.errorCode = null;
  }

  /** The audio sink takes whole frames (a sample per channel); a read may split one. */
  private sink(chunk: Uint8Array): void {
    const frameBytes = PCM_SAMPLE_WIDTH * this.format.channels;
    let data = chunk;
    if (this.carry.length > 0) {
      data = new Uint8Array(this.carry.length + chunk.length);
      data.set(this.carry);
      data.set(chunk, this.carry.length);
    }
    const whole = data.length - (data.length % frameBytes);
    this.carry = data.slice(whole);
    if (whole > 0)
      this.opts.audioSink?.write(
        data.subarray(0, whole),
        this.format.channels,
        PCM_SAMPLE_WIDTH,
        this.format.sampleRate,
      );
  }

  private warn(message: string): void {
    this.record.warnings.push(message);
    this.opts.hooks?.onWarning?.(message);
  }
}
