/**
 * vLLM-Omni's streaming-audio continuity check (docs/design.md#speech-metrics),
 * computed as each chunk arrives instead of over a stored list (same
 * arithmetic, same order, so the same floats): a listener starts playing at
 * the first chunk's arrival and consumes the PCM at real time; before each
 * later chunk, the bytes it would have played by then minus the bytes
 * received before that chunk is the deficit. `maxUnderrunS` is the largest
 * deficit in seconds, `eventCount` counts the chunks that arrived with a
 * deficit (one per gap, not per starved millisecond), and the request is
 * continuous when `maxUnderrunS <= threshold`.
 */

/** `VLLM_OMNI_BENCH_AUDIO_CONTINUITY_THRESHOLD_S`'s default: the "audible gap" budget. */
export const DEFAULT_CONTINUITY_THRESHOLD_S = 0.1;

export class ContinuityMeter {
  private t0 = 0;
  private chunks = 0;
  private receivedBefore = 0;
  maxUnderrunS = 0;
  eventCount = 0;

  /** `bytesPerS` = sample rate × sample width × channels. */
  constructor(private readonly bytesPerS: number) {}

  /** A non-empty chunk of `bytes` arrived at `arrivalS` seconds since the request's start. */
  add(arrivalS: number, bytes: number): void {
    if (this.chunks === 0) this.t0 = arrivalS;
    else if (this.bytesPerS > 0) {
      const played = (arrivalS - this.t0) * this.bytesPerS;
      const deficit = played - this.receivedBefore;
      if (deficit > 0) {
        const deficitS = deficit / this.bytesPerS;
        if (deficitS > this.maxUnderrunS) this.maxUnderrunS = deficitS;
        this.eventCount++;
      }
    }
    this.chunks++;
    this.receivedBefore += bytes;
  }

  continuous(thresholdS: number): boolean {
    return this.maxUnderrunS <= thresholdS;
  }
}
