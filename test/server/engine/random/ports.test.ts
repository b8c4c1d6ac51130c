import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { NumpyRandomState } from '#server/engine/random/numpyLegacy.ts';
import { PythonRandom } from '#server/engine/random/pythonRandom.ts';
import { arrivalOffsets, rampUpRate } from '#server/engine/schedule/arrivals.ts';
import { RpsChangeLog } from '#server/engine/schedule/traffic.ts';

// Produced by numpy and CPython themselves: test/fixtures/rng/gen_vectors.py.
const V = JSON.parse(readFileSync(new URL('../../../fixtures/rng/rng_vectors.json', import.meta.url), 'utf8')) as {
  numpy: { seed: number; doubles: number[]; normals: number[]; gammas: Record<string, number[]> }[];
  arrivals: { n: number; rate: number; burstiness: number; seed: number; offsets: number[] }[];
  ramp_up: {
    n: number;
    strategy: 'linear' | 'exponential';
    start: number;
    end: number;
    burstiness: number;
    seed: number;
    offsets: number[];
    rates: number[];
    rps_events: number[];
  }[];
  python: { seed: number; randoms: number[]; bits: number[]; shuffles: Record<string, number[]>; choice13: number[] }[];
};

/** libm and V8's Math differ by an ulp at most on log/pow/sqrt; everything else is bit-exact. */
function expectClose(actual: number[], expected: number[], rel = 1e-12): void {
  expect(actual).toHaveLength(expected.length);
  const bad = actual.findIndex((a, i) => Math.abs(a - expected[i]) > rel * Math.abs(expected[i]));
  expect(bad, `first mismatch at ${bad}: ${actual[bad]} vs ${expected[bad]}`).toBe(-1);
}

describe('numpy legacy RandomState port', () => {
  for (const c of V.numpy) {
    it(`seed ${c.seed}: random_sample and standard_normal`, () => {
      const r = new NumpyRandomState(c.seed);
      expect(c.doubles.map(() => r.randomSample())).toEqual(c.doubles);
      const g = new NumpyRandomState(c.seed);
      expectClose(
        c.normals.map(() => g.standardNormal()),
        c.normals,
      );
    });
    it(`seed ${c.seed}: gamma at shapes below, at and above 1 (200 draws each)`, () => {
      for (const [shape, draws] of Object.entries(c.gammas)) {
        const r = new NumpyRandomState(c.seed);
        expectClose(
          draws.map(() => r.gamma(Number(shape), 0.1)),
          draws,
        );
      }
    });
  }

  it('refuses the seeds numpy refuses', () => {
    expect(() => new NumpyRandomState(-1)).toThrow(/between 0 and 2\*\*32 - 1/);
    expect(() => new NumpyRandomState(2 ** 32)).toThrow(/between 0 and 2\*\*32 - 1/);
    expect(() => new NumpyRandomState(1.5)).toThrow();
  });
});

describe('arrival schedule', () => {
  for (const a of V.arrivals) {
    it(`equals vllm bench serve's get_request: ${a.n} requests at ${a.rate}/s, burstiness ${a.burstiness}, seed ${a.seed}`, () => {
      expectClose(
        arrivalOffsets(a.n, { mode: 'rate', rate: a.rate, burstiness: a.burstiness, seed: a.seed }),
        a.offsets,
      );
    });
  }
});

describe('ramp-up schedule', () => {
  for (const r of V.ramp_up) {
    it(`equals vLLM's: ${r.strategy} ${r.start}→${r.end} RPS over ${r.n} requests, burstiness ${r.burstiness}, seed ${r.seed}`, () => {
      const ramp = { strategy: r.strategy, startRps: r.start, endRps: r.end };
      expectClose(
        Array.from({ length: r.n }, (_, i) => rampUpRate(i, r.n, ramp)),
        r.rates,
      );
      expectClose(arrivalOffsets(r.n, { mode: 'ramp-up', ...ramp, burstiness: r.burstiness, seed: r.seed }), r.offsets);
      // rps_change_events: the start, then each whole RPS passed, stamped at the arrival that reached it.
      let clock = 0;
      const log = new RpsChangeLog(ramp, r.n, () => new Date(Date.UTC(2026, 0, 1) + clock));
      log.start();
      for (let i = 0; i < r.n; i++) {
        clock = i * 10;
        log.onArrival(i);
      }
      expect(log.events.map((e) => e.rps)).toEqual(r.rps_events);
      expect(new Set(log.events.map((e) => e.timestamp)).size).toBeGreaterThan(r.start === r.end ? 0 : 1);
    });
  }
});

describe('CPython random.Random port', () => {
  for (const c of V.python) {
    it(`seed ${c.seed}: random, getrandbits, shuffle, choice`, () => {
      const r = new PythonRandom(c.seed);
      expect(c.randoms.map(() => r.random())).toEqual(c.randoms);
      const b = new PythonRandom(c.seed);
      expect([1, 7, 31, 32].map((k) => b.getrandbits(k))).toEqual(c.bits);
      for (const [n, expected] of Object.entries(c.shuffles)) {
        const xs = new PythonRandom(c.seed).shuffle(Array.from({ length: Number(n) }, (_, i) => i));
        expect(Number(n) <= 1088 ? xs : [...xs.slice(0, 50), ...xs.slice(-50)]).toEqual(expected);
      }
      const pop = Array.from({ length: 13 }, (_, i) => i);
      const r2 = new PythonRandom(c.seed);
      expect(Array.from({ length: 40 }, () => r2.choice(pop))).toEqual(c.choice13);
    });
  }
});
