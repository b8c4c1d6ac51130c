/**
 * What vLLM prints about the traffic shape before the timed run, and the
 * `rps_change_events` a ramp-up run records: the starting RPS, then every
 * whole RPS value the ramp passes, stamped when the first request at that
 * rate arrives (benchmark() in vLLM's serve.py does the same).
 */
import { rampUpRate } from './arrivals.ts';
import type { RunConfig, RampUp } from '../../../shared/config/runConfig.ts';
import { pyFloat } from '../results/pyFormat.ts';
import type { RpsChangeEvent } from '../../../shared/vllmResult/resultJson.ts';

/** The lines vLLM prints after "Starting main benchmark run...". */
export function trafficLines(config: RunConfig): string[] {
  const lines = config.dispatch.rampUp
    ? [
        `Traffic ramp-up strategy: ${config.dispatch.rampUp.strategy}.`,
        `Will increase RPS from ${config.dispatch.rampUp.startRps} to ${config.dispatch.rampUp.endRps} RPS over the duration of the benchmark.`,
      ]
    : [`Traffic request rate: ${config.dispatch.requestRate === 'inf' ? 'inf' : pyFloat(config.dispatch.requestRate)}`];
  const distribution = config.dispatch.burstiness === 1 ? 'Poisson process' : 'Gamma distribution';
  lines.push(`Burstiness factor: ${pyFloat(config.dispatch.burstiness)} (${distribution})`);
  lines.push(`Maximum request concurrency: ${config.dispatch.maxConcurrency ?? 'None'}`);
  return lines;
}

export class RpsChangeLog {
  readonly events: RpsChangeEvent[] = [];
  private last: number;

  constructor(
    private readonly ramp: RampUp,
    private readonly n: number,
    private readonly now: () => Date = () => new Date(),
  ) {
    this.last = ramp.startRps;
  }

  /** The timed run starts: the starting rate is the first event. */
  start(): void {
    this.events.push({ rps: this.ramp.startRps, timestamp: pyIsoformat(this.now()) });
  }

  /** Request `index` arrives at its ramp-up rate. */
  onArrival(index: number): void {
    const current = Math.trunc(rampUpRate(index, this.n, this.ramp));
    if (current <= this.last) return;
    const timestamp = pyIsoformat(this.now());
    for (let rps = this.last + 1; rps <= current; rps++) this.events.push({ rps, timestamp });
    this.last = current;
  }
}

/** `datetime.now().isoformat()`: local, microseconds (omitted when zero). */
export function pyIsoformat(d: Date): string {
  const p = (v: number, w = 2): string => String(v).padStart(w, '0');
  const base = `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())}T${p(d.getHours())}:${p(d.getMinutes())}:${p(d.getSeconds())}`;
  const ms = d.getMilliseconds();
  return ms === 0 ? base : `${base}.${p(ms * 1000, 6)}`;
}
