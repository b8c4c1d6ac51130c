/**
 * Server VAD for `/v1/realtime` sessions with `turn_detection.type =
 * server_vad`: 20 ms frames of the appended PCM16 are speech when their RMS
 * (as a fraction of full scale) reaches the threshold scaled to a level; the
 * turn ends after `silence_duration_ms` of silence following speech. The
 * reproduction server has no speech model: what matters is that a client
 * streaming speech then silence gets `speech_started`, `speech_stopped`, the
 * commit and (with `create_response`) a response, as from a real server.
 */
const FRAME_MS = 20;
/** RMS (fraction of full scale) a frame needs at threshold 1.0; threshold 0.5 → 0.01 (≈ -40 dBFS). */
const FULL_THRESHOLD_RMS = 0.02;

export type VadEvent = { type: 'speech_started'; audioMs: number } | { type: 'speech_stopped'; audioMs: number };

export class ServerVad {
  private carry = Buffer.alloc(0);
  private audioMs = 0;
  private speaking = false;
  private silenceMs = 0;

  constructor(
    private readonly sampleRateHz: number,
    private readonly threshold: number,
    private readonly silenceDurationMs: number,
  ) {}

  /** Feeds appended PCM16; returns the boundaries found in it, in order. */
  push(pcm: Buffer): VadEvent[] {
    const frameBytes = (this.sampleRateHz * FRAME_MS * 2) / 1000;
    const data = this.carry.length ? Buffer.concat([this.carry, pcm]) : pcm;
    const out: VadEvent[] = [];
    let o = 0;
    for (; o + frameBytes <= data.length; o += frameBytes) {
      this.audioMs += FRAME_MS;
      const loud = rms(data, o, frameBytes) >= this.threshold * FULL_THRESHOLD_RMS;
      if (loud) {
        this.silenceMs = 0;
        if (!this.speaking) {
          this.speaking = true;
          out.push({ type: 'speech_started', audioMs: this.audioMs - FRAME_MS });
        }
      } else if (this.speaking && (this.silenceMs += FRAME_MS) >= this.silenceDurationMs) {
        this.speaking = false;
        this.silenceMs = 0;
        out.push({ type: 'speech_stopped', audioMs: this.audioMs });
      }
    }
    this.carry = Buffer.from(data.subarray(o));
    return out;
  }
}

function rms(buf: Buffer, offset: number, bytes: number): number {
  let sum = 0;
  const n = bytes / 2;
  for (let i = 0; i < n; i++) {
    const s = buf.readInt16LE(offset + 2 * i) / 32768;
    sum += s * s;
  }
  return Math.sqrt(sum / n);
}
