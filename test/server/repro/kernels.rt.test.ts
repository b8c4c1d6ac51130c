/**
 * The Code2Wav numeric work is real: valid 24 kHz mono PCM16 WAV, bytes that
 * depend only on codes and seed, spectra that depend on the codes, and a cost
 * that grows with steps and doubles with classifier-free guidance.
 */
import { describe, expect, it } from 'vitest';
import { createModel, MEL_BINS } from '#server/repro/code2wav/kernels/model.ts';
import { cfmStep, cosineSchedule, startNoise } from '#server/repro/code2wav/kernels/cfm.ts';
import { encodeCodes } from '#server/repro/code2wav/kernels/encoder.ts';
import {
  item,
  localDecoder,
  sha,
  similarity,
  spectrum,
  wavSamples,
  windowCodes,
  SETTINGS,
} from '#test/helpers/code2wav.ts';

describe('Code2Wav kernels', () => {
  it('produces a valid 24 kHz mono PCM16 WAV of 960 samples per code', () => {
    const { decode } = localDecoder();
    const [out] = decode([item('a', windowCodes(1, 25))]);
    const wav = out.wav!;
    const v = new DataView(wav.buffer, wav.byteOffset, wav.byteLength);
    expect(String.fromCharCode(...wav.subarray(0, 4))).toBe('RIFF');
    expect(String.fromCharCode(...wav.subarray(8, 12))).toBe('WAVE');
    expect(v.getUint16(20, true)).toBe(1);
    expect(v.getUint16(22, true)).toBe(1);
    expect(v.getUint32(24, true)).toBe(24000);
    expect(v.getUint16(34, true)).toBe(16);
    expect(v.getUint32(40, true)).toBe(25 * 960 * 2);
    const x = wavSamples(wav);
    const rms = Math.sqrt(x.reduce((a, s) => a + s * s, 0) / x.length);
    expect(rms).toBeGreaterThan(0.01); // real audio, not silence
  });

  it('gives the same bytes for the same codes and seed, also inside a different batch', () => {
    const a = localDecoder(7).decode([item('a', windowCodes(3))]);
    const b = localDecoder(7).decode([item('x', windowCodes(9)), item('y', windowCodes(3))]);
    expect(sha(a[0].wav!)).toBe(sha(b[1].wav!));
    const c = localDecoder(8).decode([item('a', windowCodes(3))]);
    expect(sha(c[0].wav!)).not.toBe(sha(a[0].wav!));
  });

  it('gives a different spectrum for different codes', () => {
    const { decode } = localDecoder();
    const [a, b] = decode([item('a', windowCodes(1)), item('b', windowCodes(2))]);
    const [a2] = localDecoder().decode([item('c', windowCodes(1))]);
    const sa = spectrum(wavSamples(a.wav!));
    expect(similarity(sa, spectrum(wavSamples(a2.wav!)))).toBeCloseTo(1, 12);
    expect(similarity(sa, spectrum(wavSamples(b.wav!)))).toBeLessThan(0.97);
  });

  it('joins consecutive chunks of one request to exactly 960 samples per code', () => {
    const { decode, ctx } = localDecoder();
    const first = windowCodes(4, 25);
    const second = Int32Array.from([...first.subarray(25), ...windowCodes(5, 10).subarray(3)]);
    const [o1] = decode([item('r', first, 0, false)]);
    const [o2] = decode([item('r', second, 1, true)]);
    expect(o1.samples + o2.samples).toBe(35 * 960);
    expect(ctx.states.has('r')).toBe(false); // released after the last chunk
    // The crossfade avoids a click at the joint: the step there is no larger than typical steps.
    const joined = [...wavSamples(o1.wav!), ...wavSamples(o2.wav!)];
    const j = o1.samples;
    const steps = joined.slice(1).map((s, i) => Math.abs(s - joined[i]));
    const typical = [...steps].sort((p, q) => p - q)[Math.floor(steps.length * 0.99)];
    expect(Math.abs(joined[j] - joined[j - 1])).toBeLessThanOrEqual(typical * 1.5);
  });

  it('rejects an out-of-order chunk for its row only', () => {
    const { decode } = localDecoder();
    const out = decode([item('r', windowCodes(1), 1, false), item('s', windowCodes(2))]);
    expect(out[0].error).toBe('missing_state_for_chunk');
    expect(out[1].wav).not.toBeNull();
  });

  it('does twice the velocity work with CFG, and work grows with steps', () => {
    const model = createModel('m');
    const mu = encodeCodes(model, windowCodes(1, 12)).slice(6 * MEL_BINS);
    const run = (steps: number, cfg: boolean) => {
      const row = { x: startNoise(0, 0, 24), mu, frames: 24 };
      const t = cosineSchedule(steps);
      let evaluated = 0;
      const t0 = performance.now();
      for (let k = 0; k < steps; k++) evaluated += cfmStep(model, [row], t[k], t[k + 1] - t[k], cfg, 0.7);
      return { evaluated, ms: performance.now() - t0 };
    };
    run(10, true); // warm up the JIT
    // Interleaved rounds, best of each: robust against a busy machine.
    const cases = { plain: [10, false], guided: [10, true], longer: [30, true] } as const;
    const res = {
      plain: { evaluated: 0, ms: Infinity },
      guided: { evaluated: 0, ms: Infinity },
      longer: { evaluated: 0, ms: Infinity },
    };
    for (let round = 0; round < 6; round++) {
      for (const [name, [steps, cfg]] of Object.entries(cases) as Array<
        [keyof typeof cases, readonly [number, boolean]]
      >) {
        const r = run(steps, cfg);
        res[name] = { evaluated: r.evaluated, ms: Math.min(res[name].ms, r.ms) };
      }
    }
    expect(res.guided.evaluated).toBe(2 * res.plain.evaluated);
    expect(res.longer.evaluated).toBe(3 * res.guided.evaluated);
    expect(res.guided.ms / res.plain.ms).toBeGreaterThan(1.3);
    expect(res.longer.ms / res.guided.ms).toBeGreaterThan(1.8);
  });

  it('publishes the phases in order, one cfm update per step in eager mode and one in whole_euler', () => {
    const eager = localDecoder();
    eager.decode([item('a', windowCodes(1))]);
    expect(eager.phases.map((p) => p.phase)).toEqual([
      'setup',
      'encoder',
      ...Array(10).fill('cfm'),
      'cache_materialization',
      'hift',
      'output_copy',
    ]);
    expect(eager.phases.filter((p) => p.phase === 'cfm').map((p) => p.details.step)).toEqual([
      0, 1, 2, 3, 4, 5, 6, 7, 8, 9,
    ]);
    const fused = localDecoder();
    const [o] = fused.decode([item('a', windowCodes(1))], { ...SETTINGS, mode: 'whole_euler' });
    expect(fused.phases.map((p) => p.phase)).toEqual([
      'setup',
      'encoder',
      'cfm',
      'cache_materialization',
      'hift',
      'output_copy',
    ]);
    expect(fused.phases[2].details).toEqual({ mode: 'whole_euler', steps: 10, step: 0, cfg_rate: 0.7, rows: 2 });
    const [e] = localDecoder().decode([item('a', windowCodes(1))]);
    expect(sha(o.wav!)).toBe(sha(e.wav!)); // the mode changes phase reporting, not the audio
  });
});
